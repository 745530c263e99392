#include "worldsnapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTest>
#include <algorithm>

namespace reclaim::test {

namespace {

const char *const kTables[] = {"Slide",    "SlideJob",  "Video",       "VideoJob",
                               "Track",    "Document",  "DocumentJob", "Image",
                               "ImageJob", "Narration", "NarrationJob"};

QList<QByteArray> allKeys(RedisConnection &conn)
{
    QList<QByteArray> keys;
    QByteArray cursor("0");
    do {
        auto r = conn.command({QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("COUNT"),
                               QByteArrayLiteral("1000")});
        if (!r || !r->isArray() || r->elements.size() != 2) {
            QTest::qFail("SCAN failed on the sandbox redis", __FILE__, __LINE__);
            return keys;
        }
        cursor = r->elements.at(0).string;
        for (const RedisValue &k : r->elements.at(1).elements)
            keys << k.string;
    } while (cursor != "0");
    return keys;
}

} // namespace

QMap<QString, QString> databaseRows(const SandboxEnv &env)
{
    QMap<QString, QString> out;
    for (const char *table : kTables) {
        const QString name = QLatin1String(table);
        const auto rows =
            sql(env, QStringLiteral("SELECT t.id, row_to_json(t)::text FROM \"%1\" t").arg(name));
        for (const QVariantList &r : rows)
            out.insert(name + QLatin1Char('/') + r.at(0).toString(), r.at(1).toString());
    }
    return out;
}

QJsonObject rowFields(const QMap<QString, QString> &rows, const QString &table, const QString &id)
{
    return QJsonDocument::fromJson(rows.value(table + QLatin1Char('/') + id).toUtf8()).object();
}

namespace {

// Appends every string in a (possibly nested) reply, each length-prefixed so no two different
// replies encode alike.
void flatten(const RedisValue &v, QByteArrayList &out)
{
    if (v.isArray()) {
        for (const RedisValue &e : v.elements)
            flatten(e, out);
        return;
    }
    const QByteArray s =
        v.type == RedisValue::Type::Integer ? QByteArray::number(v.integer) : v.string;
    out << QByteArray::number(s.size()) + ':' + s;
}

} // namespace

QMap<QByteArray, QByteArray> redisContents(const SandboxEnv &env)
{
    auto conn = redis(env);
    QMap<QByteArray, QByteArray> out;
    for (const QByteArray &key : allKeys(conn)) {
        auto type = conn.command({QByteArrayLiteral("TYPE"), key});
        if (!type) {
            QTest::qFail("TYPE failed on the sandbox redis", __FILE__, __LINE__);
            return out;
        }
        RedisCommand read;
        bool unordered = false; // hash fields and set members: Redis has no order to compare
        if (type->string == "string") {
            read = {QByteArrayLiteral("GET"), key};
        } else if (type->string == "hash") {
            read = {QByteArrayLiteral("HGETALL"), key};
            unordered = true;
        } else if (type->string == "list") {
            read = {QByteArrayLiteral("LRANGE"), key, QByteArrayLiteral("0"),
                    QByteArrayLiteral("-1")};
        } else if (type->string == "set") {
            read = {QByteArrayLiteral("SMEMBERS"), key};
            unordered = true;
        } else if (type->string == "zset") {
            read = {QByteArrayLiteral("ZRANGE"), key, QByteArrayLiteral("0"),
                    QByteArrayLiteral("-1"), QByteArrayLiteral("WITHSCORES")};
        } else if (type->string == "stream") {
            read = {QByteArrayLiteral("XRANGE"), key, QByteArrayLiteral("-"),
                    QByteArrayLiteral("+")};
        } else {
            continue; // gone between SCAN and TYPE
        }
        auto value = conn.command(read);
        if (!value) {
            QTest::qFail(qPrintable(QStringLiteral("reading %1: %2")
                                        .arg(QString::fromUtf8(key), value.error().describe())),
                         __FILE__, __LINE__);
            return out;
        }
        QByteArrayList parts;
        if (type->string == "hash") {
            // Field-value pairs, sorted by field.
            QByteArrayList pairs;
            for (qsizetype i = 0; i + 1 < value->elements.size(); i += 2) {
                QByteArrayList pair;
                flatten(value->elements.at(i), pair);
                flatten(value->elements.at(i + 1), pair);
                pairs << pair.join(',');
            }
            parts = pairs;
        } else {
            flatten(*value, parts);
        }
        if (unordered)
            std::sort(parts.begin(), parts.end());
        out.insert(key, type->string + '|' + parts.join(','));
    }
    return out;
}

qint64 redisDbSize(const SandboxEnv &env)
{
    auto conn = redis(env);
    auto r = conn.command({QByteArrayLiteral("DBSIZE")});
    return r ? r->integer : -1;
}

bool redisKeyExists(const SandboxEnv &env, const QByteArray &key)
{
    auto conn = redis(env);
    auto r = conn.command({QByteArrayLiteral("EXISTS"), key});
    return r && r->integer == 1;
}

void dropExpiringKeys(const SandboxEnv &env)
{
    auto conn = redis(env);
    for (const QByteArray &key : allKeys(conn)) {
        auto ttl = conn.command({QByteArrayLiteral("PTTL"), key});
        if (ttl && ttl->integer >= 0)
            conn.command({QByteArrayLiteral("DEL"), key});
    }
}

int closedPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 1; // nothing listens on port 1 either
    const int port = server.serverPort();
    server.close();
    return port;
}

QList<QJsonObject> manifestRows(const QJsonObject &manifest, const QString &domain,
                                const QString &kind)
{
    QList<QJsonObject> out;
    for (const QJsonValue &v : manifest.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = v.toObject();
        if (row.value(QStringLiteral("domain")).toString() == domain &&
            row.value(QStringLiteral("kind")).toString() == kind)
            out << row;
    }
    return out;
}

} // namespace reclaim::test
