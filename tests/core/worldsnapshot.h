// Before/after pictures of the sandbox for integration tests: every reference-app row in
// PostgreSQL and every key in Redis, so a test can prove exactly what a run changed.
#pragma once

#include "support/sandboxenv.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace reclaim::test {

// "<Table>/<id>" → the whole row as JSON text, for every reference table (jobs, parents, tracks).
QMap<QString, QString> databaseRows(const SandboxEnv &env);

// The fields of one row of databaseRows().
QJsonObject rowFields(const QMap<QString, QString> &rows, const QString &table, const QString &id);

// Key → type and full content of every key in the sandbox Redis (hash fields and set members
// sorted). Not DUMP: a read of a hashtable-encoded hash can finish an incremental rehash and so
// change its DUMP bytes although nothing was written.
QMap<QByteArray, QByteArray> redisContents(const SandboxEnv &env);

qint64 redisDbSize(const SandboxEnv &env);
bool redisKeyExists(const SandboxEnv &env, const QByteArray &key);

// Deletes every key that has a TTL (BullMQ worker locks, stalled-check markers): with no worker
// left, what remains never changes by itself, so before/after comparisons are exact.
void dropExpiringKeys(const SandboxEnv &env);

// A loopback TCP port nothing listens on (bound, then released).
int closedPort();

// The manifest rows matching a domain and scenario kind.
QList<QJsonObject> manifestRows(const QJsonObject &manifest, const QString &domain,
                                const QString &kind);

inline QString keyText(const QString &key)
{
    return key;
}
inline QString keyText(const QByteArray &key)
{
    return QString::fromUtf8(key);
}

// Lines describing how two key → value maps differ (empty when equal), for failure messages.
template <typename K, typename V>
QStringList differences(const QMap<K, V> &before, const QMap<K, V> &after)
{
    QStringList out;
    for (auto it = before.constBegin(); it != before.constEnd(); ++it) {
        if (!after.contains(it.key()))
            out << QStringLiteral("removed ") + keyText(it.key());
        else if (after.value(it.key()) != it.value())
            out << QStringLiteral("changed ") + keyText(it.key());
    }
    for (auto it = after.constBegin(); it != after.constEnd(); ++it)
        if (!before.contains(it.key()))
            out << QStringLiteral("added ") + keyText(it.key());
    return out;
}

} // namespace reclaim::test
