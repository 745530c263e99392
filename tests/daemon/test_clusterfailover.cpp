// #32 step 4: `reclaim --daemon` on the sandbox's Redis Cluster while the master of its queue's
// slot fails over (CLUSTER FAILOVER on that master's replica, as an operator or the cluster's own
// failure detection would promote it). The daemon keeps its cluster client across runs: the runs
// after the failover must find the new master, and no requeue may be reported applied unless the
// job is there to be worked on the new master. Afterwards an unmodified bullmq Worker completes
// every job; the test fails back, so the suites after it find the sandbox's layout.
#include "daemonprocess.h"
#include "redis/redisconnection.h"
#include "support/clusterfixture.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QString kPrefix = QStringLiteral("{bull}");
const QString kQueue = QStringLiteral("image-render");
const QByteArray kQueueKey = QByteArrayLiteral("{bull}:image-render:meta");
const QString kLockKey = QStringLiteral("{bull}:lock:job-recovery");

QStringList seed(const SandboxEnv &env, int from, int healthy, int lost, QStringList *lostRows)
{
    const QJsonObject manifest =
        QJsonDocument::fromJson(
            runNode(env, QStringLiteral("cluster-incident.js"),
                    {QStringLiteral("seed"), QStringLiteral("--redis"), env.clusterUrl,
                     QStringLiteral("--prefix"), kPrefix, QStringLiteral("--queue"), kQueue,
                     QStringLiteral("--healthy"), QString::number(healthy),
                     QStringLiteral("--lost"), QString::number(lost), QStringLiteral("--from"),
                     QString::number(from)}))
            .object();
    *lostRows << jsonStrings(manifest.value(QStringLiteral("lost")).toArray());
    return jsonStrings(manifest.value(QStringLiteral("healthy")).toArray());
}

// The row ids of the daemon's applied actions, counting each one it applied twice as a failure.
QSet<QString> appliedRows(const DaemonProcess &d, QStringList *twice)
{
    QSet<QString> applied;
    for (const QJsonObject &a : d.eventsOf(QStringLiteral("action"))) {
        if (a.value(QStringLiteral("result")).toString() != QLatin1String("applied"))
            continue;
        const QString row = a.value(QStringLiteral("jobId")).toString();
        if (applied.contains(row) && twice)
            *twice << row;
        applied.insert(row);
    }
    return applied;
}

} // namespace

class TestClusterFailover : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
    void theDaemonFollowsAFailoverOfItsQueuesMaster();

private:
    SandboxEnv m_env;
    int m_master = 0; // the queue's master as the sandbox made it
};

void TestClusterFailover::initTestCase()
{
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty() || m_env.clusterUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox with a cluster (tools/sandbox start --cluster)");
    QCOMPARE(m_env.clusterPorts.size(), 6);
    m_master = clusterOwnerPort(m_env, kQueueKey);
    QVERIFY(m_env.clusterPorts.mid(0, 3).contains(m_master));
}

// Fail back to the sandbox's master, so the suites after this one find masters first.
void TestClusterFailover::cleanup()
{
    if (clusterRoleOf(m_master).first == QLatin1String("slave"))
        QVERIFY2(clusterFailOverTo(m_env, m_master, kQueueKey),
                 "the failback did not settle in 30 s");
    QCOMPARE(clusterRoleOf(m_master).first, QStringLiteral("master"));
}

void TestClusterFailover::theDaemonFollowsAFailoverOfItsQueuesMaster()
{
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    QStringList lost;
    QStringList healthy = seed(m_env, 0, 12, 8, &lost);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("reclaim.json"));
    QVERIFY(
        writeConfig(path, clusterDomainConfig(m_env, m_env.clusterUrl, kPrefix, kQueue, kLockKey)));
    QProcessEnvironment env;
    env.insert(QStringLiteral("RECLAIM_PG_URL"), m_env.pgUrl);
    env.insert(QStringLiteral("RECLAIM_REDIS_URL"), m_env.clusterUrl);
    DaemonProcess d(daemonEnvironment(env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), path, QStringLiteral("--interval"), QStringLiteral("2")}));
    const auto allApplied = [&](const QStringList &rows) {
        return [&d, rows](const QJsonObject &) {
            const QSet<QString> applied = appliedRows(d, nullptr);
            for (const QString &r : rows)
                if (!applied.contains(r))
                    return false;
            return true;
        };
    };
    QVERIFY2(d.waitFor(allApplied(lost), 60000), d.rawStderr().right(3000).constData());

    // The queue's master fails over to its replica while the daemon lives.
    const int replica = clusterReplicaOf(m_env, m_master);
    QVERIFY(replica != 0);
    QVERIFY2(clusterFailOverTo(m_env, replica, kQueueKey), "the failover did not settle in 30 s");
    QCOMPARE(clusterRoleOf(m_master), qMakePair(QStringLiteral("slave"), replica));

    // New lost rows, and new healthy jobs the application adds on the new master. The events
    // the daemon wrote while the failover was waited for are read only now (the wait does not
    // spin the event loop): which runs started after it settled is told by their own time.
    const QDateTime settledAt = QDateTime::currentDateTimeUtc();
    QTest::qWait(200);
    const qsizetype mark = d.events().size();
    healthy << seed(m_env, 100, 4, 6, &lost);
    QVERIFY2(d.waitFor(allApplied(lost), 60000, 1, mark), d.rawStderr().right(3000).constData());
    QVERIFY(d.waitFor(
        [](const QJsonObject &e) {
            return e.value(QStringLiteral("event")).toString() == QLatin1String("run");
        },
        10000, 1, d.events().size() - 1));
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(30000));

    // Every lost row applied exactly once, across the failover; no healthy row touched.
    QStringList twice;
    const QSet<QString> applied = appliedRows(d, &twice);
    QVERIFY2(twice.isEmpty(), qPrintable(twice.join(QLatin1Char(' '))));
    QCOMPARE(applied, QSet<QString>(lost.cbegin(), lost.cend()));
    for (const QJsonObject &a : d.eventsOf(QStringLiteral("action")))
        QVERIFY2(!healthy.contains(a.value(QStringLiteral("jobId")).toString()),
                 QJsonDocument(a).toJson(QJsonDocument::Compact).constData());
    // The next run uses the new master: every run started once the failover settled completed,
    // none met MOVED, a redirection or a wait on the demoted master. (A run in flight during the
    // failover may wait on the old master, which holds writes while it hands over, and be
    // skipped: nothing is written, and the run after it completes.)
    QSet<QString> after;
    for (const QJsonObject &e : d.eventsOf(QStringLiteral("run-start")))
        if (QDateTime::fromString(e.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs) >=
            settledAt)
            after.insert(e.value(QStringLiteral("runId")).toString());
    QVERIFY(!after.isEmpty());
    QStringList runs;
    int completedAfter = 0;
    for (const QJsonObject &r : d.eventsOf(QStringLiteral("run"))) {
        const QString outcome = r.value(QStringLiteral("outcome")).toString();
        const QString runId = r.value(QStringLiteral("runId")).toString();
        runs << QStringLiteral("%1 %2 %3: %4")
                    .arg(runId, r.value(QStringLiteral("time")).toString(),
                         after.contains(runId) ? QStringLiteral("after") : QStringLiteral("before"),
                         outcome == QLatin1String("completed")
                             ? outcome
                             : QString::fromUtf8(QJsonDocument(r).toJson(QJsonDocument::Compact)));
        if (!after.contains(r.value(QStringLiteral("runId")).toString()))
            continue;
        QVERIFY2(outcome == QLatin1String("completed"),
                 qPrintable(QStringLiteral("old master %1, new master %2: %3")
                                .arg(m_master)
                                .arg(replica)
                                .arg(runs.last())));
        completedAfter += 1;
    }
    QVERIFY(completedAfter > 0);
    qInfo("runs (old master %d, new master %d, settled at %s):\n%s", m_master, replica,
          qPrintable(settledAt.toString(Qt::ISODateWithMs)),
          qPrintable(runs.join(QLatin1Char('\n'))));

    // What bullmq sees on the new master: every job waiting with its data, then worked.
    const QStringList jobIds = imageJobIds(healthy + lost);
    const QStringList where = incidentQueueArgs(m_env.clusterUrl, kPrefix, kQueue);
    const QJsonObject states = bullmqStates(m_env, where, jobIds);
    for (const QString &row : healthy + lost) {
        const QJsonObject s = states.value(QStringLiteral("image-") + row).toObject();
        QVERIFY2(s.value(QStringLiteral("state")).toString() == QLatin1String("waiting"),
                 qPrintable(row + QLatin1Char(' ') + s.value(QStringLiteral("state")).toString()));
        QCOMPARE(
            s.value(QStringLiteral("data")).toObject().value(QStringLiteral("jobId")).toString(),
            row);
    }
    const QSet<QString> completed = workerCompletes(m_env, where, int(jobIds.size()));
    QCOMPARE(completed, QSet<QString>(jobIds.cbegin(), jobIds.cend()));
}

QTEST_GUILESS_MAIN(TestClusterFailover)
#include "test_clusterfailover.moc"
