// Faults at every step boundary of a run, against real servers: Redis stopped, paused or
// restarted; PostgreSQL restarted. Each time: no wrong write, no hang past the configured
// timeouts, and once the servers are back every orphan is recovered (SPEC §4, issue 4).
#include "hookedrun.h"
#include "ownredis.h"
#include "pgserver.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

using RowState = QHash<QString, QPair<QString, QString>>; // id → (status, updatedAt)

RowState rowStates(const SandboxEnv &env)
{
    RowState out;
    for (const char *table : {"SlideJob", "VideoJob", "DocumentJob", "ImageJob", "NarrationJob"})
        for (const QVariantList &r :
             sql(env, QStringLiteral("SELECT id, status, \"updatedAt\"::text FROM \"%1\"")
                          .arg(QLatin1String(table))))
            out.insert(r.at(0).toString(), {r.at(1).toString(), r.at(2).toString()});
    return out;
}

QString expectedStatus(const QJsonObject &row)
{
    const QString action = row.value(QStringLiteral("expectedAction")).toString();
    return action == QLatin1String("REQUEUE") ? QStringLiteral("QUEUED") : QStringLiteral("FAILED");
}

} // namespace

namespace {

// Nobody holds the recovery lock (a read of it that fails counts as held: look again).
bool lockIsFree(const ReclaimConfig &config)
{
    RedisAdapters redis(config);
    const auto seen = redis.lock.peek();
    return seen && seen->holder.isEmpty();
}

} // namespace

class TestFaults : public QObject
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

    void faultAtBoundary_data()
    {
        QTest::addColumn<QString>("boundary");
        QTest::addColumn<QString>("fault");
        for (const char *fault : {"redis-stop", "redis-pause", "redis-restart"})
            for (const char *boundary :
                 {"lock", "candidates", "lookup", "scan", "trace", "enqueue", "write", "release"})
                QTest::addRow("%s at %s", fault, boundary)
                    << QString::fromLatin1(boundary) << QString::fromLatin1(fault);
        QTest::addRow("pg-restart at candidates")
            << QStringLiteral("candidates") << QStringLiteral("pg-restart");
        QTest::addRow("pg-restart at write")
            << QStringLiteral("write") << QStringLiteral("pg-restart");
    }

    void faultAtBoundary()
    {
        QFETCH(QString, boundary);
        QFETCH(QString, fault);

        OwnRedis own;
        QVERIFY(own.start());
        SandboxEnv env = m_env;
        env.redisUrl = own.url();
        resetSandbox(env);
        migrate(env);
        SeededIncident incident(env, 11, 1, false);
        QVERIFY(incident.ready());
        const RowState before = rowStates(env);
        QHash<QString, QJsonObject> manifest;
        for (const QJsonValue &v : incident.rows())
            manifest.insert(v.toObject().value(QStringLiteral("id")).toString(), v.toObject());

        ReclaimConfig config = sampleConfig(env);
        config.run.redisTimeout = std::chrono::milliseconds(500);
        config.run.postgresTimeout = std::chrono::milliseconds(2000);
        config.run.lockTtl = std::chrono::seconds(3);

        bool fired = false;
        const BoundaryHook hook = [&](const QString &at) {
            if (fired || at != boundary)
                return;
            fired = true;
            if (fault == QLatin1String("redis-stop"))
                own.stop();
            else if (fault == QLatin1String("redis-pause"))
                own.pause();
            else if (fault == QLatin1String("redis-restart")) {
                own.stop();
                own.start();
            } else if (fault == QLatin1String("pg-restart")) {
                QVERIFY(restartPostgres(env));
            }
        };
        QElapsedTimer elapsed;
        elapsed.start();
        const RunReport faulted = runHooked(config, hook, QStringLiteral("faults"));
        const qint64 ms = elapsed.elapsed();
        QVERIFY2(fired || boundary == QLatin1String("enqueue"), "the boundary was never reached");
        // No hang: bounded by the timeouts (0.5 s per Redis call), far below a stuck run.
        QVERIFY2(ms < 45000, qPrintable(QStringLiteral("faulted run took %1 ms").arg(ms)));

        own.resume();
        if (!own.running())
            QVERIFY(own.start());

        // No wrong write: a row may only have changed if it is an orphan, and only as planned.
        const RowState during = rowStates(env);
        for (auto it = during.constBegin(); it != during.constEnd(); ++it) {
            if (before.value(it.key()) == it.value())
                continue;
            const QJsonObject row = manifest.value(it.key());
            QVERIFY2(!row.value(QStringLiteral("expectedAction")).isNull() &&
                         row.contains(QStringLiteral("expectedAction")),
                     qPrintable(QStringLiteral("healthy row %1 changed to %2")
                                    .arg(it.key(), it.value().first)));
            QCOMPARE(it.value().first, expectedStatus(row));
        }
        for (const Action &a : faulted.actions)
            if (a.result == ActionResult::Applied)
                QVERIFY(manifest.contains(a.rowId));

        // Servers back: at most a few runs (the lock may still carry the faulted run's TTL).
        RunReport recovered;
        for (int i = 0; i < 10; ++i) {
            recovered = runHooked(
                config, [](const QString &) {}, QStringLiteral("faults"));
            if (recovered.outcome == RunReport::Outcome::Completed)
                break;
            // Skipped while the faulted run's lock lives out its TTL (Redis went away before
            // the release): wait for the key to go, not for a fixed time.
            QTRY_VERIFY_WITH_TIMEOUT(lockIsFree(config), 20000);
        }
        QCOMPARE(RunReport::outcomeName(recovered.outcome),
                 RunReport::outcomeName(RunReport::Outcome::Completed));
        const RowState after = rowStates(env);
        for (auto it = manifest.constBegin(); it != manifest.constEnd(); ++it) {
            const QJsonObject row = it.value();
            if (!after.contains(it.key()))
                continue;
            if (row.value(QStringLiteral("expectedAction")).isString()) {
                // A requeue whose enqueue succeeded but whose DB write failed leaves the job
                // runnable and the row as it was: the next run sees it SCHEDULED and its worker
                // moves the row on (the documented gap: enqueue and write are not one transaction).
                if (after.value(it.key()).first != expectedStatus(row) &&
                    row.value(QStringLiteral("expectedAction")).toString() ==
                        QLatin1String("REQUEUE")) {
                    QCOMPARE(after.value(it.key()), before.value(it.key()));
                    const CandidateVerdict *v =
                        recovered.find(row.value(QStringLiteral("domain")).toString(), it.key());
                    QVERIFY(v);
                    QCOMPARE(verdictName(v->verdict), verdictName(Verdict::Scheduled));
                    continue;
                }
                QCOMPARE(after.value(it.key()).first, expectedStatus(row));
            } else
                QCOMPARE(after.value(it.key()), before.value(it.key()));
        }
    }
};

QTEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
