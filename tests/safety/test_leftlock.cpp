// A run whose lock release meets a paused Redis (a failover's hand-over, a stalled master) leaves
// its lock behind. The next run of the same process gives it back first and runs, instead of
// finding its own lock "held" and skipping every run for the lock's TTL; a lock another runner
// holds by then is never touched. Against a redis-server of the test's own (SIGSTOP at the
// release), with the adapters kept across runs as the Engine keeps them.
#include "hookedrun.h"
#include "ownredis.h"
#include "redis/redisconnection.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;
using namespace std::chrono_literals;

namespace {

// The value of `key` on the test's own server, or "(nil)" / "(error ...)".
QString valueOf(const ReclaimConfig &config, const QString &key)
{
    auto c = RedisConnection::open(config.redis, 3000ms);
    if (!c)
        return QStringLiteral("(error %1)").arg(c.error().message);
    auto r = c->command({QByteArrayLiteral("GET"), key.toUtf8()});
    if (!r)
        return QStringLiteral("(error %1)").arg(r.error().message);
    return r->isNil() ? QStringLiteral("(nil)") : r->toText();
}

} // namespace

class TestLeftLock : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    OwnRedis m_redis;
    ReclaimConfig m_config;

    // A run on `redis` whose lock release meets a stopped server: the release times out and
    // the lock stays, with the run's own token and a TTL far longer than the test.
    RunReport runWhoseReleaseIsPaused(RedisAdapters &redis)
    {
        bool paused = false;
        const RunReport report = runHooked(
            redis, m_config,
            [&](const QString &at) {
                if (at == QLatin1String("release") && !paused) {
                    paused = true;
                    m_redis.pause();
                }
            },
            QStringLiteral("leftlock"));
        m_redis.resume();
        return report;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        QVERIFY(m_redis.start());
        m_env.redisUrl = m_redis.url();
        resetSandbox(m_env);
        migrate(m_env);
        m_config = sampleConfig(m_env);
        m_config.run.redisTimeout = 500ms;
        m_config.run.lockTtl = std::chrono::seconds(600); // expiry must not be what frees it
    }

    void theNextRunGivesItBackAndRuns()
    {
        RedisAdapters redis(m_config);
        const RunReport first = runWhoseReleaseIsPaused(redis);
        QCOMPARE(LockReport::stateName(first.lock.state),
                 LockReport::stateName(LockReport::State::Acquired));
        QVERIFY(!first.lock.released);
        QCOMPARE(valueOf(m_config, m_config.run.lockKey), first.lock.token); // left behind

        const RunReport second = runHooked(
            redis, m_config, [](const QString &) {}, QStringLiteral("leftlock"));
        QVERIFY2(second.outcome == RunReport::Outcome::Completed,
                 qPrintable(RunReport::outcomeName(second.outcome) + QStringLiteral(": ") +
                            second.outcomeDetail));
        QVERIFY(second.lock.released);
        QVERIFY(second.lock.generation > first.lock.generation);
        QCOMPARE(valueOf(m_config, m_config.run.lockKey), QStringLiteral("(nil)"));
    }

    // The left lock expired and another runner holds the key by the next run: theirs stays,
    // and this run is skipped as "held" by them, not by itself.
    void anotherRunnersLockIsLeftAlone()
    {
        RedisAdapters redis(m_config);
        const RunReport first = runWhoseReleaseIsPaused(redis);
        QVERIFY(!first.lock.released);
        auto admin = RedisConnection::open(m_config.redis, 3000ms);
        QVERIFY(admin);
        const QString theirs = QStringLiteral("reclaim;other-host;pid=1;run=feedbeef");
        QVERIFY(
            admin->command({QByteArrayLiteral("SET"), m_config.run.lockKey.toUtf8(),
                            theirs.toUtf8(), QByteArrayLiteral("PX"), QByteArrayLiteral("60000")}));

        const RunReport second = runHooked(
            redis, m_config, [](const QString &) {}, QStringLiteral("leftlock"));
        QCOMPARE(RunReport::outcomeName(second.outcome),
                 RunReport::outcomeName(RunReport::Outcome::SkippedLockHeld));
        QCOMPARE(second.lock.token, theirs);
        QCOMPARE(valueOf(m_config, m_config.run.lockKey), theirs);
        QVERIFY(admin->command({QByteArrayLiteral("DEL"), m_config.run.lockKey.toUtf8()}));
    }
};

QTEST_GUILESS_MAIN(TestLeftLock)
#include "test_leftlock.moc"
