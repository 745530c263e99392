// Drives the reference application's Node scripts (refapp/) from tests: migrate, seed the
// incident with real bullmq, run an unmodified bullmq worker.
#pragma once

#include "support/sandboxenv.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <memory>

namespace reclaim::test {

// Runs `node refapp/<script> args...` to completion; fails the test on a non-zero exit.
QByteArray runNode(const SandboxEnv &env, const QString &script, const QStringList &args,
                   int timeoutMs = 120000);

// Applies the reference schema.
void migrate(const SandboxEnv &env);

// The seeder, kept running with --hold so its live workers keep holding their active jobs.
class SeededIncident final
{
public:
    // `overrides` go into the seeder's environment: RECLAIM_REDIS_URL (a redis+cluster:// URL
    // seeds the cluster) and REFAPP_KEY_PREFIX (a hash-tagged prefix such as {bull}).
    SeededIncident(const SandboxEnv &env, int seed, int scale, bool hold = true,
                   const QHash<QString, QString> &overrides = {});
    ~SeededIncident();
    Q_DISABLE_COPY_MOVE(SeededIncident)

    bool ready() const { return m_ready; }
    const QJsonObject &manifest() const { return m_manifest; }
    QJsonArray rows() const { return m_manifest.value(QStringLiteral("rows")).toArray(); }
    // Manifest rows whose "kind" equals `kind`.
    QList<QJsonObject> rowsOfKind(const QString &kind) const;
    void stop();

private:
    std::unique_ptr<QProcess> m_process;
    QJsonObject m_manifest;
    bool m_ready = false;
};

// An unmodified bullmq Worker on `queue`, waiting for `count` completions (refapp/worker.js).
// Returns the completion events it printed, one JSON object each.
QList<QJsonObject> runWorker(const SandboxEnv &env, const QString &queue, int count, int timeoutMs,
                             const QString &table = {});

} // namespace reclaim::test
