#include "support/clusterfixture.h"

#include "redis/redisconnection.h"
#include "support/refapp.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonDocument>
#include <QTest>
#include <QThread>

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

QPair<QString, int> clusterRoleOf(int port)
{
    auto conn = openNode(port);
    if (!conn)
        return {};
    const auto r = conn->command({QByteArrayLiteral("ROLE")});
    if (!r || !r->isArray() || r->elements.isEmpty())
        return {};
    const QString role = r->elements.at(0).toText();
    const int master = role == QLatin1String("slave") && r->elements.size() > 2
                           ? int(r->elements.at(2).toInteger().value_or(0))
                           : 0;
    return {role, master};
}

int clusterReplicaOf(const SandboxEnv &env, int master)
{
    // Right after a failover the demoted master takes a moment to say it is a replica.
    QDeadlineTimer deadline(10000);
    do {
        for (int port : env.clusterPorts)
            if (clusterRoleOf(port) == qMakePair(QStringLiteral("slave"), master))
                return port;
        QThread::msleep(100);
    } while (!deadline.hasExpired());
    return 0;
}

bool waitClusterSettled(const SandboxEnv &env, int master, const QByteArray &key, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        bool ok = clusterRoleOf(master).first == QLatin1String("master") &&
                  clusterOwnerPort(env, key) == master;
        // The demoted master no longer says it is one: as many masters as the sandbox made.
        int masters = 0;
        for (int port : env.clusterPorts)
            masters += clusterRoleOf(port).first == QLatin1String("master") ? 1 : 0;
        ok = ok && masters == int(env.clusterPorts.size() / 2);
        for (int port : env.clusterPorts) {
            if (!ok)
                break;
            auto conn = openNode(port);
            if (!conn) {
                ok = false;
                break;
            }
            const auto info =
                conn->command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("INFO")});
            ok = info && info->toText().contains(QLatin1String("cluster_state:ok"));
            // A replica (the demoted master among them) has its link to its master up: it is
            // no longer resyncing.
            if (ok && clusterRoleOf(port).first == QLatin1String("slave")) {
                const auto repl =
                    conn->command({QByteArrayLiteral("INFO"), QByteArrayLiteral("replication")});
                ok = repl && repl->toText().contains(QLatin1String("master_link_status:up"));
            }
        }
        if (ok)
            return true;
        QThread::msleep(100);
    }
    return false;
}

bool clusterFailOverTo(const SandboxEnv &env, int replica, const QByteArray &key)
{
    // A replica takes a coordinated failover only once its link to the master is up (right after
    // an earlier failover the old master is still syncing as the new replica), and the masters
    // vote for a replica of the same master only once in 2 x node timeout (4 s here): a
    // failover asked for too soon is accepted and then lapses. So: ask, give it 6 s, ask again.
    QDeadlineTimer deadline(45000);
    bool accepted = false;
    while (!deadline.hasExpired()) {
        auto conn = openNode(replica);
        if (conn) {
            const auto info =
                conn->command({QByteArrayLiteral("INFO"), QByteArrayLiteral("replication")});
            if (info && info->toText().contains(QLatin1String("master_link_status:up")) &&
                conn->command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("FAILOVER")})) {
                accepted = true;
                if (waitClusterSettled(env, replica, key, 6000))
                    return true;
            }
        }
        QThread::msleep(100);
    }
    // What each node says, for the failure message.
    QStringList nodes;
    for (int port : env.clusterPorts) {
        const auto role = clusterRoleOf(port);
        QString state = QStringLiteral("no answer");
        if (auto conn = openNode(port)) {
            const auto info =
                conn->command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("INFO")});
            const QString text = info ? info->toText() : QString();
            const qsizetype at = text.indexOf(QLatin1String("cluster_state:"));
            if (at >= 0)
                state = text.mid(at, 17).trimmed();
        }
        nodes << QStringLiteral("%1 %2%3 %4")
                     .arg(port)
                     .arg(role.first,
                          role.second ? QStringLiteral(" of %1").arg(role.second) : QString(),
                          state);
    }
    qWarning("failover to %d %s; owner of the key: %d; %s", replica,
             accepted ? "accepted, not settled" : "never accepted", clusterOwnerPort(env, key),
             qPrintable(nodes.join(QStringLiteral("; "))));
    return false;
}

RedisConnection clusterNode(int port)
{
    auto conn = openNode(port);
    if (!conn)
        qFatal("cluster node %d did not answer", port);
    return std::move(*conn);
}

QStringList incidentQueueArgs(const QString &redisUrl, const QString &prefix, const QString &queue)
{
    return {QStringLiteral("--redis"), redisUrl, QStringLiteral("--prefix"), prefix,
            QStringLiteral("--queue"), queue};
}

QJsonObject bullmqStates(const SandboxEnv &env, const QStringList &where, const QStringList &jobIds)
{
    return QJsonDocument::fromJson(
               runNode(env, QStringLiteral("cluster-incident.js"),
                       QStringList{QStringLiteral("states")} + where +
                           QStringList{QStringLiteral("--ids"), jobIds.join(QLatin1Char(','))}))
        .object();
}

QSet<QString> workerCompletes(const SandboxEnv &env, const QStringList &where, int count)
{
    const QByteArray worked =
        runNode(env, QStringLiteral("cluster-incident.js"),
                QStringList{QStringLiteral("work")} + where +
                    QStringList{QStringLiteral("--count"), QString::number(count),
                                QStringLiteral("--timeout-ms"), QStringLiteral("60000")},
                90000);
    QSet<QString> completed;
    for (const QByteArray &line : worked.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("event")).toString() == QLatin1String("completed"))
            completed.insert(o.value(QStringLiteral("id")).toString());
    }
    return completed;
}

QStringList imageJobIds(const QStringList &rows)
{
    QStringList ids;
    for (const QString &row : rows)
        ids << QStringLiteral("image-") + row;
    return ids;
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
