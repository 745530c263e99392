#include "support/clusterfixture.h"

#include "redis/redisconnection.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

namespace reclaim::test {

namespace {

QString restoreQuery()
{
    return QStringLiteral(
        "SELECT json_build_object('jobId', j.id, 'imageId', i.id, 'prompt', i.prompt, 'width', "
        "512, 'height', 512)::text FROM \"ImageJob\" j JOIN \"Image\" i ON i.id = j.\"imageId\" "
        "WHERE j.id = :jobId");
}

std::optional<RedisConnection> openNode(int port)
{
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = port;
    auto conn = RedisConnection::open(e, std::chrono::milliseconds(2000));
    if (!conn)
        return std::nullopt;
    return std::move(*conn);
}

} // namespace

QJsonObject clusterDomainConfig(const SandboxEnv &env, const QString &redisUrl,
                                const QString &prefix, const QString &queue, const QString &lockKey)
{
    const QJsonObject domain{{QStringLiteral("name"), QStringLiteral("image")},
                             {QStringLiteral("table"), QStringLiteral("ImageJob")},
                             {QStringLiteral("thresholdSeconds"), 3600},
                             {QStringLiteral("queues"), QJsonArray{queue}},
                             {QStringLiteral("keyPrefix"), prefix},
                             {QStringLiteral("jobIdTemplate"), QStringLiteral("image-{id}")},
                             {QStringLiteral("restore"),
                              QJsonObject{{QStringLiteral("queue"), queue},
                                          {QStringLiteral("jobName"), QStringLiteral("render")},
                                          {QStringLiteral("query"), restoreQuery()}}}};
    return QJsonObject{
        {QStringLiteral("connections"), QJsonObject{{QStringLiteral("postgresUrl"), env.pgUrl},
                                                    {QStringLiteral("redisUrl"), redisUrl}}},
        {QStringLiteral("run"), QJsonObject{{QStringLiteral("lockKey"), lockKey},
                                            {QStringLiteral("policy"), QStringLiteral("auto")},
                                            {QStringLiteral("guard"),
                                             QJsonObject{{QStringLiteral("maxActions"), 100},
                                                         {QStringLiteral("maxAbsentShare"), 0.5},
                                                         {QStringLiteral("minCandidates"), 20}}}}},
        {QStringLiteral("domains"), QJsonArray{domain}}};
}

bool writeConfig(const QString &path, const QJsonObject &config)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(QJsonDocument(config).toJson()) > 0;
}

void flushCluster(const SandboxEnv &env)
{
    for (int port : env.clusterPorts) {
        auto conn = openNode(port);
        QVERIFY2(conn, qPrintable(QStringLiteral("node %1 did not answer").arg(port)));
        (void)conn->command({QByteArrayLiteral("FLUSHALL")});
    }
}

int clusterOwnerPort(const SandboxEnv &env, const QByteArray &key)
{
    for (int port : env.clusterPorts) {
        auto conn = openNode(port);
        if (!conn)
            continue;
        // A replica redirects too (READONLY is never sent), so only the master answers.
        if (conn->command({QByteArrayLiteral("EXISTS"), key}))
            return port;
    }
    return 0;
}

QStringList jsonStrings(const QJsonArray &rows)
{
    QStringList out;
    for (const QJsonValue &v : rows)
        out << v.toString();
    return out;
}

QStringList runOutcome(const QJsonObject &report)
{
    QStringList out;
    QHash<QString, QString> actions;
    for (const QJsonValue &a : report.value(QStringLiteral("actions")).toArray()) {
        const QJsonObject o = a.toObject();
        actions.insert(o.value(QStringLiteral("rowId")).toString(),
                       o.value(QStringLiteral("kind")).toString() + QLatin1Char(' ') +
                           o.value(QStringLiteral("result")).toString());
    }
    const QJsonArray domains = report.value(QStringLiteral("domains")).toArray();
    for (const QJsonValue &d : domains) {
        for (const QJsonValue &c : d.toObject().value(QStringLiteral("candidates")).toArray()) {
            const QJsonObject o = c.toObject();
            const QString id = o.value(QStringLiteral("id")).toString();
            out << QStringLiteral("%1 %2 %3")
                       .arg(id, o.value(QStringLiteral("verdict")).toString(),
                            actions.value(id, QStringLiteral("-")));
        }
    }
    out.sort();
    return out;
}

} // namespace reclaim::test
