// Issue 13 item 5 against real servers: the Redis generation never falls behind PostgreSQL's
// fence (after FLUSHALL the acquire raises it, and the run's log says so), the fence is kept per
// lock key (two deployments on one database do not fence each other), and the single-row fence
// of earlier versions is carried over.
#include "hookedrun.h"
#include "logging/runlog.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

RunReport runOnce(const ReclaimConfig &config)
{
    return runHooked(
        config, [](const QString &) {}, QStringLiteral("fencekeys"));
}

qint64 fenceOf(const SandboxEnv &env, const QString &lockKey)
{
    return sql(env, QStringLiteral("SELECT generation FROM reclaim.fence WHERE lock_key = ?"),
               {lockKey})
        .value(0)
        .value(0)
        .toLongLong();
}

} // namespace

class TestFenceKeys : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
    }

    void init()
    {
        resetSandbox(m_env);
        migrate(m_env);
    }

    void afterFlushAllARunRaisesTheGenerationAndSaysSo()
    {
        const ReclaimConfig config = sampleConfig(m_env);
        RunReport first;
        for (int i = 0; i < 3; ++i) {
            first = runOnce(config);
            QCOMPARE(RunReport::outcomeName(first.outcome), QStringLiteral("completed"));
        }
        QCOMPARE(first.lock.raisedFrom, 0);
        QCOMPARE(fenceOf(m_env, config.run.lockKey), first.lock.generation);

        redis(m_env).command({QByteArrayLiteral("FLUSHALL")}); // or a new, empty Redis
        const RunReport after = runOnce(config);
        QVERIFY2(after.outcome == RunReport::Outcome::Completed, qPrintable(after.outcomeDetail));
        QCOMPARE(after.lock.raisedFrom, 1); // INCR on the empty counter
        QCOMPARE(after.lock.generation, first.lock.generation + 1);
        QCOMPARE(fenceOf(m_env, config.run.lockKey), after.lock.generation);
        bool said = false;
        for (const LogRecord &r : describeRun(after, true))
            said = said ||
                   (r.level == LogLevel::Warn &&
                    r.message.contains(QStringLiteral("flushed or replaced")) &&
                    r.message.contains(QStringLiteral("raised to %1").arg(after.lock.generation)));
        QVERIFY(said);
        // The counter itself was raised: the next run goes on from there, with no raise.
        const RunReport next = runOnce(config);
        QCOMPARE(next.lock.raisedFrom, 0);
        QCOMPARE(next.lock.generation, after.lock.generation + 1);
    }

    void twoLockKeysOnOneDatabaseDoNotFenceEachOther()
    {
        ReclaimConfig a = sampleConfig(m_env);
        a.run.lockKey = QStringLiteral("lock:deployment-a");
        ReclaimConfig b = sampleConfig(m_env);
        b.run.lockKey = QStringLiteral("lock:deployment-b");
        // B's counter is far ahead of A's.
        redis(m_env).command({QByteArrayLiteral("SET"),
                              QByteArrayLiteral("lock:deployment-b:generation"),
                              QByteArrayLiteral("100")});
        const RunReport rb = runOnce(b);
        QCOMPARE(RunReport::outcomeName(rb.outcome), QStringLiteral("completed"));
        QCOMPARE(rb.lock.generation, 101);
        const RunReport ra = runOnce(a);
        QVERIFY2(ra.outcome == RunReport::Outcome::Completed, qPrintable(ra.outcomeDetail));
        QCOMPARE(ra.lock.generation, 1);
        QCOMPARE(ra.lock.raisedFrom, 0);
        QCOMPARE(fenceOf(m_env, a.run.lockKey), 1);
        QCOMPARE(fenceOf(m_env, b.run.lockKey), 101);
    }

    void theSingleRowFenceOfEarlierVersionsIsCarriedOver()
    {
        sql(m_env, QStringLiteral("CREATE SCHEMA reclaim"));
        sql(m_env,
            QStringLiteral("CREATE TABLE reclaim.fence (id integer PRIMARY KEY CHECK (id = 1),"
                           " generation bigint NOT NULL,"
                           " started_at timestamptz NOT NULL DEFAULT now())"));
        sql(m_env, QStringLiteral("INSERT INTO reclaim.fence (id, generation) VALUES (1, 41)"));
        const ReclaimConfig config = sampleConfig(m_env);
        const RunReport r = runOnce(config); // Redis is empty: its counter restarts at 1
        QVERIFY2(r.outcome == RunReport::Outcome::Completed, qPrintable(r.outcomeDetail));
        QCOMPARE(r.lock.generation, 42);
        QCOMPARE(fenceOf(m_env, config.run.lockKey), 42);
        QCOMPARE(sql(m_env, QStringLiteral("SELECT to_regclass('reclaim.fence_single')::text"))
                     .value(0)
                     .value(0)
                     .toString(),
                 QString());
        // Idempotent: the next migration leaves the new table as it is.
        QCOMPARE(RunReport::outcomeName(runOnce(config).outcome), QStringLiteral("completed"));
        QCOMPARE(fenceOf(m_env, config.run.lockKey), 43);
    }
};

QTEST_GUILESS_MAIN(TestFenceKeys)
#include "test_fencekeys.moc"
