// Redis Sentinel end to end, against 1 master + 1 replica + 3 sentinels the test starts, with an
// incident seeded by real bullmq into the master: the master is found through the sentinels
// (a dead first sentinel passed over), the same Engine's next run after `SENTINEL failover`
// reads from and writes to the new master with no restart, and a run pointed at the old master,
// now a replica, is refused by its ROLE before anything is written, even where the replica would
// take writes (replica-read-only no). Sentinels with a password or an ACL user of their own, and
// sentinels over TLS, as companies run them (#31 item 6).
#include "fencing/redislock.h"
#include "redis/masterlocator.h"
#include "reportprinter.h"
#include "sentinelset.h"
#include "service/engine.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "support/testcerts.h"
#include "worldsnapshot.h"

#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// A "sentinel" that names a fixed address for every question: what a sentinel that has not yet
// heard of a failover does. A few lines of Node, so no real sentinel has to be made to lag.
class StaleSentinel final
{
public:
    explicit StaleSentinel(int namedPort)
    {
        static const char script[] = R"(const net = require('net');
const port = process.argv[1];
const reply = `*2\r\n$9\r\n127.0.0.1\r\n$${port.length}\r\n${port}\r\n`;
const server = net.createServer((c) => c.on('data', () => c.write(reply)));
server.listen(0, '127.0.0.1', () => console.log(server.address().port));)";
        m_process.start(
            QStringLiteral(RECLAIM_NODE),
            {QStringLiteral("-e"), QString::fromLatin1(script), QString::number(namedPort)});
        if (m_process.waitForStarted(5000) && m_process.waitForReadyRead(10000))
            m_port = m_process.readLine().trimmed().toInt();
    }
    ~StaleSentinel()
    {
        m_process.kill();
        m_process.waitForFinished();
    }
    Q_DISABLE_COPY_MOVE(StaleSentinel)
    int port() const { return m_port; }

private:
    QProcess m_process;
    int m_port = 0;
};

} // namespace

class TestSentinel : public QObject
{
    Q_OBJECT

    SandboxEnv m_env;
    std::unique_ptr<SentinelSet> m_set;
    std::unique_ptr<SeededIncident> m_incident;

    // The sandbox with its Redis replaced by one node of the set: what the seeder and the
    // snapshots talk to.
    SandboxEnv onNode(int port) const
    {
        SandboxEnv env = m_env;
        env.redisUrl = SentinelSet::dataUrl(port);
        env.redisPort = port;
        return env;
    }

    ReclaimConfig configWithRedis(const QString &redisUrl) const
    {
        ReclaimConfig config = sampleConfig(m_env);
        auto endpoint = parseRedisUrl(redisUrl);
        if (!endpoint)
            qFatal("bad test URL: %s", qPrintable(endpoint.error()));
        config.redis = *endpoint;
        config.run.redisTimeout = std::chrono::milliseconds(1000);
        return config;
    }

    // Row ids of the manifest whose expected action is not empty: the true orphans.
    QSet<QString> expectedActions() const
    {
        QSet<QString> ids;
        for (const QJsonValue &v : m_incident->rows()) {
            const QJsonObject row = v.toObject();
            if (!row.value(QStringLiteral("expectedAction")).toString().isEmpty())
                ids << row.value(QStringLiteral("domain")).toString() + QLatin1Char('/') +
                           row.value(QStringLiteral("id")).toString();
        }
        return ids;
    }

    static QSet<QString> absentIds(const RunReport &report)
    {
        QSet<QString> ids;
        for (const DomainReport &d : report.domains)
            for (const CandidateVerdict &c : d.candidates)
                if (c.verdict == Verdict::Absent)
                    ids << d.name + QLatin1Char('/') + c.candidate.id;
        return ids;
    }

    static RunRequest request(bool dryRun)
    {
        RunRequest r;
        r.trigger = QStringLiteral("daemon");
        r.dryRun = dryRun;
        return r;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        resetSandbox(m_env);
        migrate(m_env);
        m_set = std::make_unique<SentinelSet>();
        QVERIFY2(m_set->start(), qPrintable(m_set->error()));
        // Real bullmq jobs, produced into the master the sentinels monitor.
        m_incident = std::make_unique<SeededIncident>(onNode(m_set->dataPort(0)), 14, 1, false);
        QVERIFY(m_incident->ready());
        QVERIFY(!expectedActions().isEmpty());
        // Everything seeded is on the replica too before anything fails over.
        auto master = SentinelSet::connect(m_set->dataPort(0));
        QVERIFY(master.hasValue());
        auto acked = master->command(
            {QByteArrayLiteral("WAIT"), QByteArrayLiteral("1"), QByteArrayLiteral("5000")});
        QVERIFY(acked.hasValue());
        QCOMPARE(acked->integer, 1LL);
    }

    void cleanupTestCase()
    {
        m_incident.reset();
        m_set.reset();
    }

    // A dry run over the sentinels, the first of which is down: every true orphan is ABSENT,
    // read from the master they name.
    void theMasterIsFoundThroughTheSentinelsInOrder()
    {
        const auto endpoint = parseRedisUrl(m_set->url(true));
        QVERIFY(endpoint.hasValue());
        auto conn = openMaster(*endpoint, std::chrono::milliseconds(1000));
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(conn->endpointName(), QStringLiteral("127.0.0.1:%1").arg(m_set->dataPort(0)));

        Engine engine(configWithRedis(m_set->url(true)));
        const RunReport report = engine.run(request(true));
        QVERIFY2(report.outcome == RunReport::Outcome::Completed, qPrintable(report.outcomeDetail));
        QCOMPARE(absentIds(report), expectedActions());
        QCOMPARE(report.count(Verdict::Unknown), 0);
    }

    // No sentinel leads to a master: the run is skipped with what each sentinel said, exit 4.
    void noSentinelThatKnowsTheMasterIsAClearError()
    {
        const QString url =
            QStringLiteral("redis+sentinel://127.0.0.1:%1,127.0.0.1:%2/nosuchmaster")
                .arg(m_set->deadPort())
                .arg(m_set->sentinelPort(0));
        Engine engine(configWithRedis(url));
        const RunReport report = engine.run(request(false));
        qInfo("%s", qPrintable(report.outcomeDetail));
        QCOMPARE(report.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(exitCodeFor(report), 4);
        QVERIFY2(report.outcomeDetail.contains(
                     QStringLiteral("127.0.0.1:%1 does not monitor a master named 'nosuchmaster'")
                         .arg(m_set->sentinelPort(0))),
                 qPrintable(report.outcomeDetail));
        QVERIFY2(
            report.outcomeDetail.contains(QStringLiteral("127.0.0.1:%1").arg(m_set->deadPort())),
            qPrintable(report.outcomeDetail));
    }

    // A sentinel that names the replica as the master: the node's ROLE gives it away, the next
    // sentinel is asked; with no other sentinel the run is skipped and no verdict is ABSENT.
    void aSentinelThatNamesAReplicaIsPassedOver()
    {
        const int replica = m_set->dataPort(1);
        StaleSentinel stale(replica);
        QVERIFY(stale.port() > 0);
        const QString both = QStringLiteral("redis+sentinel://127.0.0.1:%1,127.0.0.1:%2/mymaster")
                                 .arg(stale.port())
                                 .arg(m_set->sentinelPort(1));
        auto conn = openMaster(*parseRedisUrl(both), std::chrono::milliseconds(1000));
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(conn->endpointName(), QStringLiteral("127.0.0.1:%1").arg(m_set->dataPort(0)));

        const QString onlyStale =
            QStringLiteral("redis+sentinel://127.0.0.1:%1/mymaster").arg(stale.port());
        Engine engine(configWithRedis(onlyStale));
        const RunReport report = engine.run(request(true));
        qInfo("%s", qPrintable(report.outcomeDetail));
        QCOMPARE(report.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(exitCodeFor(report), 4);
        QVERIFY2(report.outcomeDetail.contains(
                     QStringLiteral("127.0.0.1:%1 is a replica of 127.0.0.1:%2")
                         .arg(replica)
                         .arg(m_set->dataPort(0))),
                 qPrintable(report.outcomeDetail));
        QCOMPARE(report.count(Verdict::Absent), 0);
        QVERIFY(report.actions.isEmpty());
    }

    // The URL's password and database are the master's: discovery asks the (password-less)
    // sentinels without AUTH, the master is authenticated and the database selected; a wrong
    // password is refused without being quoted.
    void aPasswordAndDatabaseAreTheMasters()
    {
        const QString password = QStringLiteral("pw-Sx42-secret");
        SentinelSet set(password);
        QVERIFY2(set.start(), qPrintable(set.error()));
        const QString nodes = QStringLiteral("127.0.0.1:%1,127.0.0.1:%2/mymaster/2")
                                  .arg(set.sentinelPort(0))
                                  .arg(set.sentinelPort(1));
        const auto endpoint = parseRedisUrl(QStringLiteral("redis+sentinel://:") + password +
                                            QLatin1Char('@') + nodes);
        QVERIFY(endpoint.hasValue());
        QVERIFY(!endpoint->redacted().contains(password));
        auto conn = openMaster(*endpoint, std::chrono::milliseconds(1000));
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(conn->endpointName(), QStringLiteral("127.0.0.1:%1").arg(set.dataPort(0)));
        QVERIFY(conn->command({QByteArrayLiteral("SET"), QByteArrayLiteral("sentinel-probe"),
                               QByteArrayLiteral("db2")}));
        auto raw = SentinelSet::connect(set.dataPort(0), password);
        QVERIFY(raw.hasValue());
        QVERIFY(raw->command({QByteArrayLiteral("SELECT"), QByteArrayLiteral("2")}));
        QCOMPARE(
            raw->command({QByteArrayLiteral("GET"), QByteArrayLiteral("sentinel-probe")})->toText(),
            QStringLiteral("db2"));

        const QString wrong = QStringLiteral("wrong-Qz7");
        auto refused = openMaster(
            *parseRedisUrl(QStringLiteral("redis+sentinel://:") + wrong + QLatin1Char('@') + nodes),
            std::chrono::milliseconds(1000));
        QVERIFY(!refused.hasValue());
        qInfo("%s", qPrintable(refused.error().message));
        QVERIFY2(refused.error().message.contains(
                     QStringLiteral("authentication to 127.0.0.1:%1").arg(set.dataPort(0))),
                 qPrintable(refused.error().message));
        QVERIFY(!refused.error().message.contains(wrong));
    }

    // One Engine, as a daemon keeps it: a run, a failover, and the next run follows it.
    void theNextRunAfterAFailoverUsesTheNewMaster()
    {
        const int oldMaster = m_set->dataPort(0);
        const int newMaster = m_set->dataPort(1);
        Engine engine(configWithRedis(m_set->url(false)));
        const RunReport before = engine.run(request(true));
        QVERIFY2(before.outcome == RunReport::Outcome::Completed, qPrintable(before.outcomeDetail));
        QCOMPARE(absentIds(before), expectedActions());

        auto sentinel = SentinelSet::connect(m_set->sentinelPort(0));
        QVERIFY(sentinel.hasValue());
        auto failover =
            sentinel->command({QByteArrayLiteral("SENTINEL"), QByteArrayLiteral("failover"),
                               QByteArray(SentinelSet::kMasterName)});
        QVERIFY2(failover.hasValue(), failover ? "" : qPrintable(failover.error().message));
        // Done when every sentinel names the new master, it says it is one, and the old master
        // has been turned into its replica. That is the sentinels' own work, not Reclaim's: it
        // took 35.5 s once in CI, with four suites sharing two cores, so the wait allows 60 s
        // (it ends as soon as they agree).
        QTRY_VERIFY_WITH_TIMEOUT(m_set->masterPortSeenBy(0) == newMaster &&
                                     m_set->masterPortSeenBy(1) == newMaster &&
                                     m_set->masterPortSeenBy(2) == newMaster &&
                                     SentinelSet::role(newMaster) == QLatin1String("master") &&
                                     SentinelSet::role(oldMaster) == QLatin1String("slave"),
                                 60000);

        const auto rowsBefore = databaseRows(m_env);
        const RunReport after = engine.run(request(false));
        QVERIFY2(after.outcome == RunReport::Outcome::Completed, qPrintable(after.outcomeDetail));
        QCOMPARE(after.lock.state, LockReport::State::Acquired);
        QVERIFY(after.lock.released);
        QCOMPARE(absentIds(after), expectedActions());
        // Every action applied: its enqueue and lock writes were accepted, which a replica
        // refuses, and the lock's generation counter on the new master is this run's.
        QCOMPARE(after.actions.size(), expectedActions().size());
        for (const Action &a : after.actions)
            QVERIFY2(a.result == ActionResult::Applied,
                     qPrintable(a.rowId + QLatin1Char(' ') + a.resultDetail));
        auto node = SentinelSet::connect(newMaster);
        QVERIFY(node.hasValue());
        auto generation = node->command(
            {QByteArrayLiteral("GET"), RedisLock::generationKeyFor(engine.config().run.lockKey)});
        QVERIFY(generation.hasValue());
        QCOMPARE(generation->toText().toLongLong(), after.lock.generation);
        QVERIFY(!differences(rowsBefore, databaseRows(m_env)).isEmpty());
    }

    // Runs after the failover above (Qt Test keeps the declared order): the old master is a
    // replica now. The old master's address, as a configuration that does not follow Sentinel still
    // has it: the node's ROLE says replica, so the run is skipped before it takes the lock,
    // exit 4, and nothing changes in PostgreSQL or on the replica.
    void aRunPointedAtTheOldMasterNowAReplicaWritesNothing()
    {
        const int oldMaster = m_set->dataPort(0);
        QCOMPARE(SentinelSet::role(oldMaster), QStringLiteral("slave"));
        // Orphans again, so a run that wrongly went ahead would have something to write.
        sql(m_env, QStringLiteral(R"(UPDATE "ImageJob" SET status = 'PROCESSING',
            "updatedAt" = now() AT TIME ZONE 'UTC' - interval '2 hours' WHERE status = 'FAILED')"));
        const auto rowsBefore = databaseRows(m_env);
        const auto redisBefore = redisContents(onNode(oldMaster));

        Engine engine(configWithRedis(SentinelSet::dataUrl(oldMaster)));
        const RunReport report = engine.run(request(false));
        qInfo("%s", qPrintable(report.outcomeDetail));
        QCOMPARE(report.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(exitCodeFor(report), 4);
        QVERIFY2(report.outcomeDetail.contains(
                     QStringLiteral("127.0.0.1:%1 is a replica of").arg(oldMaster)),
                 qPrintable(report.outcomeDetail));
        QVERIFY(report.actions.isEmpty());
        QCOMPARE(report.count(Verdict::Absent), 0);
        const QStringList changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        QVERIFY(redisContents(onNode(oldMaster)) == redisBefore);

        // What the Sentinel form checks before it uses a node: this one says what it is.
        auto conn = SentinelSet::connect(oldMaster);
        QVERIFY(conn.hasValue());
        const auto wrong = notMaster(*conn);
        QVERIFY(wrong.has_value());
        QVERIFY2(wrong->message.contains(
                     QStringLiteral("is a replica of 127.0.0.1:%1").arg(m_set->dataPort(1))),
                 qPrintable(wrong->message));
    }

    // The same replica set to take writes (`replica-read-only no`): no READONLY would stop a
    // write there, and what it took would be lost at the next sync. A plain URL is ROLE-checked
    // at every connection, so the run is refused before its lock, with the reason, exit 4.
    void aPlainUrlToAWritableReplicaIsRefusedBeforeAnyWrite()
    {
        const int oldMaster = m_set->dataPort(0);
        QCOMPARE(SentinelSet::role(oldMaster), QStringLiteral("slave"));
        auto admin = SentinelSet::connect(oldMaster);
        QVERIFY(admin.hasValue());
        QVERIFY(admin->command({"CONFIG", "SET", "replica-read-only", "no"}));
        QVERIFY(admin->command({"SET", "writable-replica-probe", "1"})); // it does take writes
        QVERIFY(admin->command({"DEL", "writable-replica-probe"}));
        const auto rowsBefore = databaseRows(m_env);
        const auto redisBefore = redisContents(onNode(oldMaster));

        Engine engine(configWithRedis(SentinelSet::dataUrl(oldMaster)));
        const RunReport report = engine.run(request(false));
        qInfo("%s", qPrintable(report.outcomeDetail));
        QVERIFY(admin->command({"CONFIG", "SET", "replica-read-only", "yes"}));
        QCOMPARE(report.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(exitCodeFor(report), 4);
        QVERIFY2(report.outcomeDetail.contains(QStringLiteral("127.0.0.1:%1 is a replica of "
                                                              "127.0.0.1:%2, not the master")
                                                   .arg(oldMaster)
                                                   .arg(m_set->dataPort(1))),
                 qPrintable(report.outcomeDetail));
        QVERIFY(report.actions.isEmpty());
        QCOMPARE(report.count(Verdict::Absent), 0);
        const QStringList changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        QVERIFY(redisContents(onNode(oldMaster)) == redisBefore);
    }

    void sentinelsWithCredentialsOfTheirOwn_data()
    {
        QTest::addColumn<bool>("aclUser");
        QTest::addColumn<bool>("tls");
        QTest::newRow("requirepass, TCP") << false << false;
        QTest::newRow("ACL user, TLS (rediss+sentinel)") << true << true;
    }

    // Sentinels that require a password of their own (requirepass), or an ACL user with the
    // default user off, over TCP or TLS only: connections.redisSentinel's credentials reach the
    // sentinels, never the master; without them each sentinel's refusal says which key to set;
    // a wrong one is not quoted; and an Engine's run reads from the master they name.
    void sentinelsWithCredentialsOfTheirOwn()
    {
        QFETCH(bool, aclUser);
        QFETCH(bool, tls);
        QTemporaryDir certDir;
        TestCerts certs;
        SentinelSet::Options options;
        options.sentinelPassword = QStringLiteral("sent-pw-9Kq");
        if (aclUser)
            options.sentinelUser = QStringLiteral("watcher");
        if (tls) {
            QVERIFY2(certs.make(certDir.path()), qPrintable(certs.error()));
            options.tlsCert = certs.serverCert();
            options.tlsKey = certs.serverKey();
            options.tlsCa = certs.ca();
        }
        SentinelSet set(options);
        QVERIFY2(set.start(), qPrintable(set.error()));

        auto parsed = parseRedisUrl(set.url(false));
        QVERIFY2(parsed.hasValue(), parsed ? "" : qPrintable(parsed.error()));
        RedisEndpoint endpoint = *parsed;
        QCOMPARE(endpoint.tls.enabled, tls);
        endpoint.tls.caFile = options.tlsCa;

        auto refused = openMaster(endpoint, std::chrono::milliseconds(1000));
        QVERIFY(!refused.hasValue());
        qInfo("%s", qPrintable(refused.error().message));
        QVERIFY2(refused.error().message.contains(QLatin1String("connections.redisSentinel")),
                 qPrintable(refused.error().message));

        endpoint.sentinel->user = options.sentinelUser;
        endpoint.sentinel->password = QStringLiteral("wrong-Zp3");
        auto wrong = openMaster(endpoint, std::chrono::milliseconds(1000));
        QVERIFY(!wrong.hasValue());
        QVERIFY(!wrong.error().message.contains(QLatin1String("wrong-Zp3")));

        endpoint.sentinel->password = options.sentinelPassword;
        auto conn = openMaster(endpoint, std::chrono::milliseconds(1000));
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(conn->endpointName(), QStringLiteral("127.0.0.1:%1%2")
                                           .arg(set.dataPort(0))
                                           .arg(tls ? QStringLiteral(" (TLS)") : QString()));
        QVERIFY(conn->command({"SET", "through-the-sentinels", "yes"}));

        ReclaimConfig config = sampleConfig(m_env);
        config.redis = endpoint;
        config.run.redisTimeout = std::chrono::milliseconds(1000);
        const RunReport report = Engine(config).run(request(true));
        QVERIFY2(report.outcome == RunReport::Outcome::Completed, qPrintable(report.outcomeDetail));
        QCOMPARE(report.count(Verdict::Unknown), 0);
    }
};

QTEST_GUILESS_MAIN(TestSentinel)
#include "test_sentinel.moc"
