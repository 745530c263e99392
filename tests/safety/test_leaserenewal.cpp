// #28 case 7, SPEC §4: the recovery lock is renewed the whole time it is held, reads included.
// A run whose lookups and scan take longer than the lock's TTL (a slow scan: every page waits)
// keeps the lock: a second runner that tries to take it in the middle of the reads is refused,
// and the run ends with its lease intact. Before the fix the lock was renewed only before a
// write, so it expired during the reads and the second runner took it.
#include "faultports.h"
#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"
#include "support/sandboxenv.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QString kQueue = QStringLiteral("lease-q");
constexpr int kWaiting = 300;
constexpr int kPageSize = 10;
constexpr int kTtlSeconds = 2;
constexpr int kPageDelayMs = 150; // 30+ pages: the scan alone takes over twice the TTL

} // namespace

class TestLeaseRenewal : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;

    ReclaimConfig config() const
    {
        ReclaimConfig c = sampleConfig(m_env);
        DomainConfig d;
        d.name = QStringLiteral("lease");
        d.table = QStringLiteral("LeaseJob");
        d.queues = {kQueue};
        d.jobIdTemplate = kQueue + QStringLiteral("-{id}");
        c.domains = {d};
        c.run.lockTtl = std::chrono::seconds(kTtlSeconds);
        c.run.scanPageSize = kPageSize;
        return c;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
        sql(m_env, QStringLiteral("CREATE TABLE \"LeaseJob\" (id text PRIMARY KEY, status text NOT "
                                  "NULL, \"updatedAt\" timestamp(3) NOT NULL)"));
        sql(m_env, QStringLiteral("INSERT INTO \"LeaseJob\" VALUES ('lease_orphan', 'QUEUED', "
                                  "now() AT TIME ZONE 'UTC' - interval '2 hours')"));
        // A queue of ordinary waiting jobs in BullMQ's layout (the lease does not depend on how
        // they got there): none is the orphan's, so the scan reads every page of it.
        RedisConnection conn = redis(m_env);
        const QByteArray prefix = QStringLiteral("bull:%1:").arg(kQueue).toUtf8();
        QVERIFY(conn.command({"HSET", prefix + "meta", "version", "bullmq:6.7.6"}));
        for (int i = 0; i < kWaiting; ++i) {
            const QByteArray id = "w" + QByteArray::number(i);
            QVERIFY(conn.command({"HSET", prefix + id, "name", "work", "data",
                                  "{\"jobId\":\"other_" + QByteArray::number(i) + "\"}",
                                  "timestamp", "1"}));
            QVERIFY(conn.command({"LPUSH", prefix + "wait", id}));
        }
    }

    void readsLongerThanTheTtlKeepTheLock()
    {
        const ReclaimConfig c = config();
        RedisAdapters redisPorts(c);
        RedisAdapters intruder(c.redis, c.run); // a second runner, on its own connection
        QElapsedTimer clock;
        clock.start();
        int scanPages = 0;
        std::optional<bool> intruderTookIt;
        QString intruderSaw;
        const BoundaryHook hook = [&](const QString &boundary) {
            if (boundary != QLatin1String("scan"))
                return;
            ++scanPages;
            QThread::msleep(kPageDelayMs);
            // Well past the TTL since the run took the lock, once.
            if (!intruderTookIt && clock.elapsed() > kTtlSeconds * 1000 + 1000) {
                auto attempt = intruder.lock.acquire(QStringLiteral("intruder"), 60000, 0);
                QVERIFY2(attempt, qPrintable(attempt ? QString() : attempt.error().describe()));
                intruderTookIt = attempt->acquired;
                intruderSaw = attempt->holder;
            }
        };
        HookedQueue queue(redisPorts.queue, redisPorts.queue, redisPorts.lock, hook);
        auto store = PgJobStore::open(c, false);
        QVERIFY2(store, qPrintable(store ? QString() : store.error().message));
        RunRequest request;
        request.trigger = QStringLiteral("test");
        request.executeActions = false;
        request.actor =
            Actor{QStringLiteral("test"), QStringLiteral("lease"), QStringLiteral("t"), {}};
        const RunReport report = RecoveryRun(c, store->get(), {}, queue, queue, queue).run(request);

        qInfo("%d scan pages in %lld ms (TTL %d s)", scanPages, clock.elapsed(), kTtlSeconds);
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        QVERIFY2(clock.elapsed() > 2 * kTtlSeconds * 1000, "the reads did not outlast the TTL");
        QVERIFY(intruderTookIt.has_value());
        QVERIFY2(!*intruderTookIt, "a second runner took the lock while the first was reading");
        QCOMPARE(intruderSaw, report.lock.token);
        QVERIFY2(!report.lock.lost, qPrintable(report.outcomeDetail));
        QVERIFY(report.lock.released);
        // The scan read the whole queue and concluded.
        QCOMPARE(report.domains.size(), 1);
        QCOMPARE(report.domains.first().candidates.size(), 1);
        QCOMPARE(report.domains.first().candidates.first().verdict, Verdict::Absent);
    }
};

QTEST_GUILESS_MAIN(TestLeaseRenewal)
#include "test_leaserenewal.moc"
