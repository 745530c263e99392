// #32 step 2: the incident on a real Redis Cluster (the sandbox's 6 nodes, tools/sandbox
// --cluster), produced by the real bullmq over an ioredis Cluster (refapp/cluster-incident.js),
// once per hash-tag style, and the same incident on the single node as the reference:
//  - `reclaim --once` over redis+cluster:// gets the verdicts and actions it gets on one node;
//  - every lost job is requeued with its exact data, every healthy one left as it was;
//  - an unmodified bullmq Worker on the cluster completes every job, requeued ones included.
// The lock key carries the queue's hash tag, so the fenced enqueue's keys share one slot (a
// design for several tags is #32 step 3).
#include "config/configloader.h"
#include "config/fencekeys.h"
#include "redis/clusterclient.h"
#include "redis/redisconnection.h"
#include "service/engine.h"
#include "service/redisadapters.h"
#include "support/clusterfixture.h"
#include "support/manifestcheck.h"
#include "support/reclaimprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "util/clusterslot.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kHealthy = 12;
constexpr int kLost = 8;

} // namespace

class TestClusterIncident : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void incident_data();
    void incident();
    void aStaleRunnersEnqueueIsRefusedInEveryQueueSlot();
    void aMasterThatDoesNotAnswerLeavesItsJobsUnknownNeverAbsent();
    void theReferenceIncidentOnTheCluster();

private:
    SandboxEnv m_env;
    QStringList m_singleNode; // the reference outcome, from the first data row
};

void TestClusterIncident::initTestCase()
{
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty() || m_env.clusterUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox with a cluster (tools/sandbox start --cluster)");
    QCOMPARE(m_env.clusterPorts.size(), 6);
}

void TestClusterIncident::incident_data()
{
    QTest::addColumn<bool>("cluster");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("queue");
    QTest::addColumn<QString>("lockKey");
    QTest::newRow("single node (the reference)") << false << "bull"
                                                 << "image-render"
                                                 << "lock:job-recovery";
    QTest::newRow("cluster, {bull} prefix") << true << "{bull}"
                                            << "image-render"
                                            << "{bull}:lock:job-recovery";
    QTest::newRow("cluster, a tag per queue") << true << "bull"
                                              << "{image-render}"
                                              << "{image-render}:lock:job-recovery";
}

void TestClusterIncident::incident()
{
    QFETCH(bool, cluster);
    QFETCH(QString, prefix);
    QFETCH(QString, queue);
    QFETCH(QString, lockKey);
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    const QString redisUrl = cluster ? m_env.clusterUrl : m_env.redisUrl;
    const QStringList where = incidentQueueArgs(redisUrl, prefix, queue);

    const QJsonObject manifest =
        QJsonDocument::fromJson(
            runNode(m_env, QStringLiteral("cluster-incident.js"),
                    QStringList{QStringLiteral("seed")} + where +
                        QStringList{QStringLiteral("--healthy"), QString::number(kHealthy),
                                    QStringLiteral("--lost"), QString::number(kLost)}))
            .object();
    const QStringList healthy = jsonStrings(manifest.value(QStringLiteral("healthy")).toArray());
    const QStringList lost = jsonStrings(manifest.value(QStringLiteral("lost")).toArray());
    QCOMPARE(healthy.size(), kHealthy);
    QCOMPARE(lost.size(), kLost);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("reclaim.json"));
    QVERIFY(writeConfig(path, clusterDomainConfig(m_env, redisUrl, prefix, queue, lockKey)));

    const Ran ran = runReclaim(
        m_env, QStringLiteral(RECLAIM_BINARY),
        {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path},
        {{QStringLiteral("RECLAIM_REDIS_URL"), redisUrl}});
    QVERIFY2(ran.exitCode == 0, ran.both().right(3000).constData());
    const QStringList got = runOutcome(ran.json());
    QCOMPARE(got.size(), kHealthy + kLost);
    for (const QString &row : healthy)
        QVERIFY2(got.contains(QStringLiteral("%1 SCHEDULED -").arg(row)),
                 qPrintable(got.join(QLatin1Char('\n'))));
    for (const QString &row : lost)
        QVERIFY2(got.contains(QStringLiteral("%1 ABSENT REQUEUE applied").arg(row)),
                 qPrintable(got.join(QLatin1Char('\n'))));
    if (!cluster)
        m_singleNode = got;
    else if (!m_singleNode.isEmpty())
        QCOMPARE(got, m_singleNode);

    // What bullmq itself sees: every job waiting, the requeued ones with their exact data.
    const QStringList jobIds = imageJobIds(healthy + lost);
    const QJsonObject states = bullmqStates(m_env, where, jobIds);
    for (const QString &row : healthy + lost) {
        const QJsonObject s = states.value(QStringLiteral("image-") + row).toObject();
        QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("waiting"));
        const QJsonObject data = s.value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("jobId")).toString(), row);
        QCOMPARE(data.value(QStringLiteral("imageId")).toString(),
                 QString(row).replace(QStringLiteral("cij-"), QStringLiteral("cim-")));
        QCOMPARE(data.value(QStringLiteral("width")).toInt(), 512);
    }
    // One audit row per action, and the rows left for the worker to move.
    const auto audits = sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.audit"));
    QCOMPARE(audits.value(0).value(0).toInt(), kLost);
    const auto queued =
        sql(m_env, QStringLiteral("SELECT count(*) FROM \"ImageJob\" WHERE status = 'QUEUED'"));
    QCOMPARE(queued.value(0).value(0).toInt(), kHealthy + kLost);

    // An unmodified worker on the same deployment completes every job, requeued ones included.
    const QSet<QString> completed = workerCompletes(m_env, where, kHealthy + kLost);
    for (const QString &row : lost)
        QVERIFY2(completed.contains(QStringLiteral("image-") + row), qPrintable(row));
    QCOMPARE(completed.size(), kHealthy + kLost);
    const QJsonObject after = bullmqStates(m_env, where, jobIds);
    for (const QString &id : jobIds)
        QCOMPARE(after.value(id).toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("completed"));
}

// #32 step 3: the lock lives in its own slot and two queues in two others. Taking the lock raises
// the generation's copy in each queue slot before anything is written, so a run that lost the
// lock and resumes is refused by both queues' enqueue script, while the new holder's succeeds.
void TestClusterIncident::aStaleRunnersEnqueueIsRefusedInEveryQueueSlot()
{
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    const QStringList queues{QStringLiteral("{image-render}"), QStringLiteral("{image-retry}")};
    QJsonObject json =
        clusterDomainConfig(m_env, m_env.clusterUrl, QStringLiteral("bull"), queues.first(),
                            QStringLiteral("{reclaim}:lock:job-recovery"));
    QJsonArray domains = json.value(QStringLiteral("domains")).toArray();
    QJsonObject domain = domains.first().toObject();
    domain[QStringLiteral("queues")] = QJsonArray{queues.at(0), queues.at(1)};
    domains[0] = domain;
    json[QStringLiteral("domains")] = domains;
    auto config = ConfigLoader::loadJson(QJsonDocument(json).toJson(), QStringLiteral("test"),
                                         QProcessEnvironment());
    QVERIFY2(config, config ? "" : qPrintable(config.error().toString()));
    const FenceKeys fence = fenceKeysOf(*config);
    const QList<QByteArray> copies = fence.copiesFor(queuesOf(*config));
    QCOMPARE(copies.size(), 2); // neither queue shares the lock's slot, nor each other's

    RedisAdapters stale(*config);
    auto first = stale.lock.acquire(QStringLiteral("stale-token"), 60000, 0);
    QVERIFY2(first && first->acquired, first ? "" : qPrintable(first.error().describe()));
    auto channel = stale.link.connection();
    QVERIFY(channel);
    for (const QByteArray &copy : copies)
        QCOMPARE((*channel)->command({QByteArrayLiteral("GET"), copy})->toText(),
                 QString::number(first->generation));

    // The stale holder pauses past its TTL; a new runner takes the lock.
    QVERIFY((*channel)->command({QByteArrayLiteral("DEL"), config->run.lockKey.toUtf8()}));
    RedisAdapters fresh(*config);
    auto second = fresh.lock.acquire(QStringLiteral("fresh-token"), 60000, 0);
    QVERIFY2(second && second->acquired, second ? "" : qPrintable(second.error().describe()));
    QCOMPARE(second->generation, first->generation + 1);

    for (const QString &q : queues) {
        EnqueueRequest request;
        request.job = JobRef{QStringLiteral("bull"), q, QStringLiteral("image-cij-stale")};
        request.name = QStringLiteral("render");
        request.data = QByteArrayLiteral("{\"jobId\":\"cij-stale\"}");
        request.timestampMs = QDateTime::currentMSecsSinceEpoch();
        request.generation = first->generation;
        request.familyIfUnstamped = QStringLiteral("6"); // empty queues: never stamped
        auto refused = stale.queue.enqueue(request);
        QVERIFY2(refused, refused ? "" : qPrintable(refused.error().describe()));
        QVERIFY2(refused->fenced && !refused->enqueued, qPrintable(q));
        QCOMPARE(refused->currentGeneration, second->generation);

        request.generation = second->generation;
        auto taken = fresh.queue.enqueue(request);
        QVERIFY2(taken, taken ? "" : qPrintable(taken.error().describe()));
        QVERIFY2(taken->enqueued, qPrintable(q));
    }
}

// Three verdicts on a real cluster: the master of the queue's slot stops answering (CLIENT PAUSE:
// its connections stay open, its commands wait) while the other masters and the cluster bus go
// on. Every candidate of that queue is UNKNOWN with the reason, none ABSENT, nothing planned.
// Both the direct lookup and the scan read that master: each alone keeps the verdict UNKNOWN.
void TestClusterIncident::aMasterThatDoesNotAnswerLeavesItsJobsUnknownNeverAbsent()
{
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    const QString prefix = QStringLiteral("bull");
    const QString queue = QStringLiteral("{image-render}");
    runNode(m_env, QStringLiteral("cluster-incident.js"),
            {QStringLiteral("seed"), QStringLiteral("--redis"), m_env.clusterUrl,
             QStringLiteral("--prefix"), prefix, QStringLiteral("--queue"), queue,
             QStringLiteral("--healthy"), QString::number(kHealthy), QStringLiteral("--lost"),
             QString::number(kLost)});

    // The master serving the queue's slot, as the cluster itself says.
    const auto endpoint = parseRedisUrl(m_env.clusterUrl);
    QVERIFY(endpoint);
    ClusterClient cluster(endpoint->cluster->seeds,
                          ClusterClient::connectorFor(*endpoint, std::chrono::milliseconds(2000)));
    QVERIFY(cluster.refreshSlotMap());
    const HostPort *owner = cluster.slotMap().owner(clusterKeySlot("bull:{image-render}:wait"));
    QVERIFY(owner);
    RedisEndpoint node;
    node.host = owner->host;
    node.port = owner->port;
    auto paused = RedisConnection::open(node, std::chrono::milliseconds(2000));
    QVERIFY(paused);
    QVERIFY(paused->command({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("PAUSE"),
                             QByteArrayLiteral("5000"), QByteArrayLiteral("ALL")}));

    // The lock on another master, so the run gets past it and looks at the queue.
    QString lockKey;
    for (int i = 0; lockKey.isEmpty(); ++i) {
        const QString key = QStringLiteral("{reclaim-%1}:lock:job-recovery").arg(i);
        const HostPort *lockOwner = cluster.slotMap().owner(clusterKeySlot(key.toUtf8()));
        if (lockOwner && !(*lockOwner == *owner))
            lockKey = key;
    }
    QJsonObject json = clusterDomainConfig(m_env, m_env.clusterUrl, prefix, queue, lockKey);
    QJsonObject run = json.value(QStringLiteral("run")).toObject();
    run[QStringLiteral("redisTimeoutMs")] = 300;
    json[QStringLiteral("run")] = run;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("paused.json"));
    QVERIFY(writeConfig(path, json));
    const Ran ran = runReclaim(m_env, QStringLiteral(RECLAIM_BINARY),
                               {QStringLiteral("--once"), QStringLiteral("--dry-run"),
                                QStringLiteral("--json"), QStringLiteral("--config"), path},
                               {{QStringLiteral("RECLAIM_REDIS_URL"), m_env.clusterUrl}});
    const QJsonObject report = ran.json();
    QVERIFY2(!report.isEmpty(), ran.both().right(3000).constData());
    const QStringList got = runOutcome(report);
    QVERIFY2(got.size() == kHealthy + kLost, ran.both().left(3000).constData());
    for (const QString &line : got)
        QVERIFY2(line.contains(QLatin1String(" UNKNOWN -")),
                 qPrintable(got.join(QLatin1Char('\n'))));
    const QJsonObject counts = report.value(QStringLiteral("counts")).toObject();
    QCOMPARE(counts.value(QStringLiteral("ABSENT")).toInt(), 0);
    QCOMPARE(counts.value(QStringLiteral("UNKNOWN")).toInt(), kHealthy + kLost);
    const QJsonObject first = report.value(QStringLiteral("domains"))
                                  .toArray()
                                  .first()
                                  .toObject()
                                  .value(QStringLiteral("candidates"))
                                  .toArray()
                                  .first()
                                  .toObject();
    QVERIFY2(first.value(QStringLiteral("unknownReason"))
                 .toString()
                 .contains(QString::number(owner->port)),
             qPrintable(first.value(QStringLiteral("unknownReason")).toString()));

    // The pause ends by itself; the next tests find the cluster answering.
    QDeadlineTimer deadline(10000);
    bool answers = false;
    while (!answers && !deadline.hasExpired()) {
        auto again = RedisConnection::open(node, std::chrono::milliseconds(1000));
        answers = again && again->command({QByteArrayLiteral("PING")});
    }
    QVERIFY(answers);
}

// #32 step 2, the whole reference incident: refapp/seed.js (every scenario, written by the real
// bullmq's producers, FlowProducer and workers, with live workers holding their active jobs)
// seeded on the cluster over ioredis Cluster connections, every queue under {bull}. An auto run
// reaches every verdict of the manifest with the sighting behind it (how found, in which state,
// whether the worker's lock is held), as test_incident asks of the single node, and applies
// exactly the expected actions.
void TestClusterIncident::theReferenceIncidentOnTheCluster()
{
    resetSandbox(m_env);
    flushCluster(m_env);
    migrate(m_env);
    const QString prefix = QStringLiteral("{bull}");
    SeededIncident incident(m_env, 1, 1, true,
                            {{QStringLiteral("RECLAIM_REDIS_URL"), m_env.clusterUrl},
                             {QStringLiteral("REFAPP_KEY_PREFIX"), prefix}});
    QVERIFY(incident.ready());
    QCOMPARE(incident.manifest().value(QStringLiteral("prefix")).toString(), prefix);

    ReclaimConfig config = sampleConfig(m_env);
    const auto cluster = parseRedisUrl(m_env.clusterUrl);
    QVERIFY(cluster);
    config.redis = *cluster;
    config.run.lockKey = prefix + QStringLiteral(":lock:job-recovery");
    for (DomainConfig &d : config.domains)
        d.keyPrefix = prefix;
    RunRequest request;
    request.trigger = QStringLiteral("test");
    request.actor = Actor{QStringLiteral("test"), QStringLiteral("h"), QStringLiteral("t"), {}};
    Engine engine(config);
    const RunReport report = engine.run(request);
    QCOMPARE(report.outcome, RunReport::Outcome::Completed);
    const QStringList problems = verdictProblems(incident.manifest(), report);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    int expected = 0;
    for (const QJsonValue &value : incident.rows()) {
        const QJsonObject row = value.toObject();
        const QString kind = str(row, "expectedAction");
        if (kind.isEmpty())
            continue;
        ++expected;
        const QString id = str(row, "domain") + QLatin1Char('/') + str(row, "id");
        const auto a = std::find_if(report.actions.begin(), report.actions.end(),
                                    [&](const Action &x) { return x.id == id; });
        QVERIFY2(a != report.actions.end(),
                 qPrintable(rowName(row) + QStringLiteral(": no action")));
        QCOMPARE(actionKindName(a->kind), kind);
        QVERIFY2(a->result == ActionResult::Applied,
                 qPrintable(rowName(row) + QLatin1Char(' ') + a->resultDetail));
    }
    QVERIFY(expected > 0);
    QCOMPARE(report.actions.size(), expected);
}

QTEST_GUILESS_MAIN(TestClusterIncident)
#include "test_clusterincident.moc"
