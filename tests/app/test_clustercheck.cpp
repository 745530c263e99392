// #32 step 4: `reclaim --check` on the sandbox's Redis Cluster (tools/sandbox --cluster). An ACL
// user, a version and a maxmemory-policy belong to each node, so every master is asked; the
// queue and lock items follow the slot map; the report says where each domain's queues and the
// lock live. And the README's least-privilege cluster user, created on every node, checks and
// runs.
#include "redis/redisconnection.h"
#include "support/clusterfixture.h"
#include "support/reclaimprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "util/clusterslot.h"

#include <QFile>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kHealthy = 12;
constexpr int kLost = 8;
const QString kPrefix = QStringLiteral("{bull}");
const QString kQueue = QStringLiteral("image-render");
const QString kLockKey = QStringLiteral("{bull}:lock:job-recovery");
const QByteArray kUser = QByteArrayLiteral("reclaim-cluster");
const QByteArray kPassword = QByteArrayLiteral("cl-pw-7d1e");

// The items of a `--check --json` report by id.
QHash<QString, QJsonObject> itemsOf(const QJsonObject &report)
{
    QHash<QString, QJsonObject> out;
    for (const QJsonValue &v : report.value(QStringLiteral("items")).toArray())
        out.insert(v.toObject().value(QStringLiteral("id")).toString(), v.toObject());
    return out;
}

QString describe(const QHash<QString, QJsonObject> &items)
{
    QStringList lines;
    for (auto it = items.cbegin(); it != items.cend(); ++it)
        lines << QStringLiteral("%1 %2: %3")
                     .arg(it.key(), it->value(QStringLiteral("status")).toString(),
                          it->value(QStringLiteral("summary")).toString());
    lines.sort();
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestClusterCheck : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void aSingleNodeUrlToAClusterNodeIsRefused();
    void everyMasterIsCheckedAndEachDomainsSlotNamed();
    void theReadmesClusterUserChecksAndRuns();

private:
    QJsonObject check(const QString &url, int *exitCode = nullptr);
    SandboxEnv m_env;
    QTemporaryDir m_dir;
};

void TestClusterCheck::initTestCase()
{
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty() || m_env.clusterUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox with a cluster (tools/sandbox start --cluster)");
    QCOMPARE(m_env.clusterPorts.size(), 6);
}

void TestClusterCheck::init()
{
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    runNode(m_env, QStringLiteral("cluster-incident.js"),
            {QStringLiteral("seed"), QStringLiteral("--redis"), m_env.clusterUrl,
             QStringLiteral("--prefix"), kPrefix, QStringLiteral("--queue"), kQueue,
             QStringLiteral("--healthy"), QString::number(kHealthy), QStringLiteral("--lost"),
             QString::number(kLost)});
}

QJsonObject TestClusterCheck::check(const QString &url, int *exitCode)
{
    const QString path = m_dir.filePath(QStringLiteral("check.json"));
    if (!writeConfig(path, clusterDomainConfig(m_env, url, kPrefix, kQueue, kLockKey)))
        qFatal("cannot write %s", qPrintable(path));
    const Ran ran = runReclaim(
        m_env, QStringLiteral(RECLAIM_BINARY),
        {QStringLiteral("--check"), QStringLiteral("--json"), QStringLiteral("--config"), path},
        {{QStringLiteral("RECLAIM_REDIS_URL"), url}});
    if (exitCode)
        *exitCode = ran.exitCode;
    const QJsonObject report = ran.json();
    if (report.isEmpty())
        qWarning("%s", ran.both().right(3000).constData());
    return report;
}

// A single-node URL to a cluster's node would read one master's keys as the whole keyspace.
void TestClusterCheck::aSingleNodeUrlToAClusterNodeIsRefused()
{
    int exitCode = 0;
    const auto items = itemsOf(
        check(QStringLiteral("redis://127.0.0.1:%1/0").arg(m_env.clusterPorts.first()), &exitCode));
    QVERIFY(exitCode != 0);
    const QJsonObject cluster = items.value(QStringLiteral("redis.cluster"));
    QCOMPARE(cluster.value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
    QVERIFY2(cluster.value(QStringLiteral("fix"))
                 .toString()
                 .contains(QLatin1String("use redis+cluster://")),
             qPrintable(describe(items)));
}

// The queue's tag lands on the second master (slot 9263 of "bull"), so the queue items answer
// only if they follow the slot map, and the worker item sees the job lock only if its SCAN walks
// every master, not the first seed alone.
void TestClusterCheck::everyMasterIsCheckedAndEachDomainsSlotNamed()
{
    const QByteArray queueKey = QByteArrayLiteral("{bull}:image-render:meta");
    const int owner = clusterOwnerPort(m_env, queueKey);
    QVERIFY(owner != 0);
    QVERIFY2(owner != m_env.clusterPorts.first(), "the queue must not live on the first seed");
    QVERIFY(clusterNode(owner).command(
        {"SET", "{bull}:image-render:w1:lock", "worker-token", "PX", "60000"}));

    const QJsonObject report = check(m_env.clusterUrl);
    const auto items = itemsOf(report);
    const QString all = describe(items);
    const auto status = [&](const QString &id) {
        return items.value(id).value(QStringLiteral("status")).toString();
    };
    const auto summary = [&](const QString &id) {
        return items.value(id).value(QStringLiteral("summary")).toString();
    };
    for (const QString &id :
         {QStringLiteral("redis.reachable"), QStringLiteral("redis.version"),
          QStringLiteral("redis.cluster"), QStringLiteral("redis.hash-tags"),
          QStringLiteral("redis.commands"), QStringLiteral("redis.slot.lock"),
          QStringLiteral("redis.slot.image"), QStringLiteral("queue.{bull}:image-render.exists"),
          QStringLiteral("queue.{bull}:image-render.worker"), QStringLiteral("lock.holder")})
        QVERIFY2(status(id) == QLatin1String("pass"), qPrintable(id + QLatin1Char('\n') + all));
    QVERIFY2(summary(QStringLiteral("redis.reachable")).contains(QLatin1String("3 masters")),
             qPrintable(all));
    QVERIFY2(summary(QStringLiteral("redis.version")).startsWith(QLatin1String("every master (3)")),
             qPrintable(all));
    QVERIFY2(summary(QStringLiteral("redis.cluster"))
                 .contains(QLatin1String("16384 of 16384 slots served by 3 masters")),
             qPrintable(all));
    // Where the queue and the lock live, as the nodes themselves answer.
    const QString where =
        QStringLiteral("slot %1 on 127.0.0.1:%2").arg(clusterKeySlot(queueKey)).arg(owner);
    QVERIFY2(summary(QStringLiteral("redis.slot.image")).contains(where), qPrintable(all));
    QVERIFY2(summary(QStringLiteral("redis.slot.lock")).contains(where), qPrintable(all));
    QVERIFY2(
        summary(QStringLiteral("redis.slot.lock")).contains(QLatin1String("no generation copy")),
        qPrintable(all));
    QVERIFY2(summary(QStringLiteral("queue.{bull}:image-render.exists"))
                 .contains(QStringLiteral("(%1 jobs").arg(kHealthy)),
             qPrintable(all));
    QVERIFY2(summary(QStringLiteral("queue.{bull}:image-render.worker"))
                 .contains(QLatin1String("1 job lock(s)")),
             qPrintable(all));
}

// The README's least-privilege line for a cluster, created on every node: --check fails nothing,
// and a writing run completes with it. Then, allowed to dry-run its ACL, the same user checks
// every command on every master; a master that refuses ASKING is the one named.
void TestClusterCheck::theReadmesClusterUserChecksAndRuns()
{
    QFile readme(QStringLiteral(RECLAIM_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    QByteArray line;
    for (const QByteArray &l : readme.readAll().split('\n'))
        if (l.trimmed().startsWith("ACL SETUSER reclaim on >s3cret ~{bull}:* "))
            line = l.trimmed();
    QVERIFY2(!line.isEmpty(), "no cluster ACL line in the README");
    RedisCommand setUser{"ACL", "SETUSER", kUser, "reset"};
    for (const QByteArray &token : line.split(' ').mid(3))
        setUser << (token == ">s3cret" ? ">" + kPassword : token);
    const auto onEveryNode = [&](const RedisCommand &argv) {
        for (int port : m_env.clusterPorts) {
            const auto r = clusterNode(port).command(argv);
            QVERIFY2(r, r ? "" : qPrintable(r.error().message));
        }
    };
    onEveryNode(setUser);
    const auto drop = qScopeGuard([&] { onEveryNode({"ACL", "DELUSER", kUser}); });
    const QString url = QString(m_env.clusterUrl)
                            .replace(QStringLiteral("://"), QStringLiteral("://%1:%2@")
                                                                .arg(QString::fromUtf8(kUser),
                                                                     QString::fromUtf8(kPassword)));

    auto items = itemsOf(check(url));
    QVERIFY(!items.isEmpty());
    QStringList failed;
    for (const QJsonObject &item : std::as_const(items))
        if (item.value(QStringLiteral("status")).toString() == QLatin1String("fail"))
            failed << item.value(QStringLiteral("id")).toString() + QStringLiteral(": ") +
                          item.value(QStringLiteral("summary")).toString();
    QVERIFY2(failed.isEmpty(), qPrintable(failed.join(QLatin1Char('\n'))));

    const QString path = m_dir.filePath(QStringLiteral("run.json"));
    QVERIFY(writeConfig(path, clusterDomainConfig(m_env, url, kPrefix, kQueue, kLockKey)));
    const Ran ran = runReclaim(
        m_env, QStringLiteral(RECLAIM_BINARY),
        {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path},
        {{QStringLiteral("RECLAIM_REDIS_URL"), url}});
    QVERIFY2(ran.exitCode == 0, ran.both().right(3000).constData());
    QVERIFY2(!ran.both().contains("NOPERM"), ran.both().right(3000).constData());
    const QStringList got = runOutcome(ran.json());
    QCOMPARE(got.filter(QStringLiteral("ABSENT REQUEUE applied")).size(), kLost);
    QCOMPARE(got.filter(QStringLiteral("SCHEDULED -")).size(), kHealthy);

    // With ACL DRYRUN allowed, every command on every master; then one master refuses ASKING.
    onEveryNode({"ACL", "SETUSER", kUser, "+acl|whoami", "+acl|dryrun"});
    items = itemsOf(check(url));
    QVERIFY2(items.value(QStringLiteral("redis.commands"))
                 .value(QStringLiteral("summary"))
                 .toString()
                 .startsWith(QLatin1String("every master (3): ACL DRYRUN")),
             qPrintable(describe(items)));
    const int refusing = m_env.clusterPorts.at(2);
    QVERIFY(clusterNode(refusing).command({"ACL", "SETUSER", kUser, "-asking"}));
    items = itemsOf(check(url));
    const QJsonObject commands = items.value(QStringLiteral("redis.commands"));
    const QString said = commands.value(QStringLiteral("summary")).toString();
    QCOMPARE(commands.value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
    QVERIFY2(said.contains(QStringLiteral("127.0.0.1:%1: ").arg(refusing)) &&
                 said.contains(QLatin1String("ASKING")),
             qPrintable(said));
    for (int port : m_env.clusterPorts.mid(0, 2))
        QVERIFY2(!said.contains(QStringLiteral(":%1").arg(port)), qPrintable(said));
}

QTEST_GUILESS_MAIN(TestClusterCheck)
#include "test_clustercheck.moc"
