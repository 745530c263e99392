// The recovery core when a server is gone: Redis frozen in the middle of a run or before it,
// PostgreSQL unreachable. Each time the run ends within seconds, says what it could not do, and
// writes nothing where it could not look.
#include "reportprinter.h"
#include "service/engine.h"
#include "support/callbackprogress.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "testprint.h"
#include "worldsnapshot.h"

#include <QElapsedTimer>
#include <QTest>
#include <csignal>
#include <functional>
#include <sys/types.h>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// SIGSTOP on the sandbox redis-server: it keeps its socket open and accepts connections, but
// never answers — the "hung server" case, harder than a refused connection.
class RedisFreeze final
{
public:
    explicit RedisFreeze(qint64 pid) : m_pid(static_cast<pid_t>(pid)) {}
    ~RedisFreeze() { thaw(); }
    Q_DISABLE_COPY_MOVE(RedisFreeze)

    bool freeze()
    {
        m_frozen = m_pid > 0 && ::kill(m_pid, SIGSTOP) == 0;
        return m_frozen;
    }
    void thaw()
    {
        if (m_frozen)
            ::kill(m_pid, SIGCONT);
        m_frozen = false;
    }
    bool frozen() const { return m_frozen; }

private:
    pid_t m_pid;
    bool m_frozen = false;
};

RunRequest request(RunProgress *progress = nullptr)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.progress = progress;
    r.actor =
        Actor{QStringLiteral("test"), QStringLiteral("test-host"), QStringLiteral("tester"), {}};
    return r;
}

const QByteArray kLockKey = QByteArrayLiteral("lock:job-recovery");

} // namespace

class TestOutage : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    int m_candidates = 0;

    ReclaimConfig fastConfig() const
    {
        ReclaimConfig config = sampleConfig(m_env);
        config.run.redisTimeout = std::chrono::milliseconds(500);
        return config;
    }

    // A lock left by an earlier test of this file whose release never reached Redis.
    void clearLock()
    {
        auto conn = redis(m_env);
        conn.command({QByteArrayLiteral("DEL"), kLockKey});
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        QVERIFY(m_env.redisPid() > 0);
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 1, 1, false);
        QVERIFY(incident.ready());
        for (const QJsonValue &v : incident.rows())
            m_candidates += v.toObject().value(QStringLiteral("candidate")).toBool() ? 1 : 0;
        QVERIFY(m_candidates > 0);
        dropExpiringKeys(m_env); // no worker is left: Redis now only changes when we change it
    }

    // Whatever happened in a test, the sandbox redis runs again afterwards.
    void cleanup()
    {
        if (m_env.redisPid() > 0)
            ::kill(static_cast<pid_t>(m_env.redisPid()), SIGCONT);
        // Commands our timed-out connections left in the frozen server's buffers run as soon as
        // it resumes; one answered PING on a new connection means they have run.
        auto conn = redis(m_env);
        QVERIFY(conn.command({QByteArrayLiteral("PING")}));
    }

    void redisFrozenMidRunMakesCandidatesUnknown()
    {
        clearLock();
        const auto rowsBefore = databaseRows(m_env);
        RedisFreeze freeze(m_env.redisPid());
        CallbackProgress progress([&](const QString &phase, int, int) {
            if (phase == QLatin1String("lookup") && !freeze.frozen())
                freeze.freeze(); // the lock is taken and the candidates are read by now
        });
        Engine engine(fastConfig());
        QElapsedTimer timer;
        timer.start();
        const RunReport report = engine.run(request(&progress));
        const qint64 elapsed = timer.elapsed();
        QVERIFY(freeze.frozen());
        freeze.thaw();
        qInfo("run with a frozen Redis took %lld ms", elapsed);

        QVERIFY2(elapsed < 30000, qPrintable(QStringLiteral("the run took %1 ms").arg(elapsed)));
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        QCOMPARE(report.lock.state, LockReport::State::Acquired);
        QCOMPARE(report.count(Verdict::Unknown), m_candidates);
        QCOMPARE(report.count(Verdict::Absent), 0);
        QCOMPARE(report.count(Verdict::Scheduled), 0);
        for (const DomainReport &d : report.domains)
            for (const CandidateVerdict &c : d.candidates)
                QVERIFY2(!c.unknownReason.isEmpty(), qPrintable(c.candidate.id));
        QVERIFY(report.actions.isEmpty());
        const QStringList changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
    }

    void redisFrozenBeforeTheRunSkipsIt()
    {
        clearLock();
        const auto rowsBefore = databaseRows(m_env);
        RedisFreeze freeze(m_env.redisPid());
        QVERIFY(freeze.freeze());
        Engine engine(fastConfig());
        QElapsedTimer timer;
        timer.start();
        const RunReport report = engine.run(request());
        const qint64 elapsed = timer.elapsed();
        freeze.thaw();

        QVERIFY2(elapsed < 30000, qPrintable(QStringLiteral("the run took %1 ms").arg(elapsed)));
        QCOMPARE(report.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(exitCodeFor(report), 4);
        QCOMPARE(report.lock.state, LockReport::State::Unreachable);
        QVERIFY(!report.lock.error.isEmpty());
        QVERIFY(report.domains.isEmpty());
        QVERIFY(report.actions.isEmpty());
        const QStringList changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
    }

    // Without the job store nothing can be decided: the run stops before it touches Redis, so
    // it neither takes the lock nor bumps the generation counter.
    void postgresDownWritesNothingToRedis()
    {
        clearLock();
        const qint64 sizeBefore = redisDbSize(m_env);
        const auto redisBefore = redisContents(m_env);
        QVERIFY(sizeBefore > 0);
        ReclaimConfig config = fastConfig();
        config.postgres.port = closedPort();
        Engine engine(config);
        QElapsedTimer timer;
        timer.start();
        const RunReport report = engine.run(request());
        QVERIFY(timer.elapsed() < 30000);
        QCOMPARE(report.outcome, RunReport::Outcome::Failed);
        QCOMPARE(exitCodeFor(report), 5);
        QVERIFY2(report.outcomeDetail.contains(QStringLiteral("PostgreSQL")),
                 qPrintable(report.outcomeDetail));
        QVERIFY(!config.postgres.password.isEmpty());
        QVERIFY(!report.outcomeDetail.contains(config.postgres.password));
        QCOMPARE(report.lock.state, LockReport::State::NotAttempted);
        QVERIFY(!redisKeyExists(m_env, kLockKey));
        QCOMPARE(redisDbSize(m_env), sizeBefore);
        const QStringList changed = differences(redisBefore, redisContents(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestOutage)
#include "test_outage.moc"
