// /readyz's rule: ready only while the last preflight check did not fail and a run that reached
// a decision finished within two intervals.
#include "daemon/readiness.h"

#include <QTest>

using namespace reclaim;

class TestReadiness : public QObject
{
    Q_OBJECT
private slots:
    void readiness_data();
    void readiness();
    void aFailedCheckIsNotReadyEvenAfterAFreshRun();
};

void TestReadiness::readiness_data()
{
    QTest::addColumn<int>("ageSeconds"); // -1: no decided run yet
    QTest::addColumn<int>("intervalSeconds");
    QTest::addColumn<bool>("ready");
    QTest::addColumn<QString>("reasonContains");
    QTest::newRow("before the first run")
        << -1 << 300 << false << QStringLiteral("no run has completed yet");
    QTest::newRow("just finished") << 0 << 300 << true << QStringLiteral("ok: run r1");
    QTest::newRow("one interval ago") << 300 << 300 << true << QStringLiteral("300 s ago");
    QTest::newRow("exactly two intervals") << 600 << 300 << true << QStringLiteral("600 s ago");
    QTest::newRow("just over two intervals")
        << 601 << 300 << false << QStringLiteral("more than two intervals (600 s)");
    QTest::newRow("short interval, stale")
        << 5 << 2 << false << QStringLiteral("(last run: r9 failed: down)");
}

void TestReadiness::readiness()
{
    QFETCH(int, ageSeconds);
    QFETCH(int, intervalSeconds);
    QFETCH(bool, ready);
    QFETCH(QString, reasonContains);
    const QDateTime now(QDate(2024, 3, 1), QTime(12, 0), Qt::UTC);
    ReadinessInput in;
    in.interval = std::chrono::seconds(intervalSeconds);
    if (ageSeconds >= 0) {
        in.lastDecidedAt = now.addSecs(-ageSeconds);
        in.lastDecidedRunId = QStringLiteral("r1");
    }
    in.lastRunSummary = QStringLiteral("r9 failed: down");
    const Readiness r = evaluateReadiness(in, now);
    QCOMPARE(r.ready, ready);
    QVERIFY2(r.reason.contains(reasonContains), qPrintable(r.reason));
}

void TestReadiness::aFailedCheckIsNotReadyEvenAfterAFreshRun()
{
    const QDateTime now(QDate(2024, 3, 1), QTime(12, 0), Qt::UTC);
    ReadinessInput in;
    in.lastDecidedAt = now;
    in.lastDecidedRunId = QStringLiteral("r1");
    in.failedCheck = QStringLiteral("redis.maxmemory-policy: maxmemory-policy is allkeys-lru");
    const Readiness failed = evaluateReadiness(in, now);
    QVERIFY(!failed.ready);
    QVERIFY2(failed.reason.startsWith(QLatin1String("the preflight check failed: "
                                                    "redis.maxmemory-policy")),
             qPrintable(failed.reason));
    QVERIFY2(failed.reason.contains(QLatin1String("the last completed run was r1")),
             qPrintable(failed.reason));
    in.failedCheck.clear(); // the check passed (or only warned) again
    QVERIFY(evaluateReadiness(in, now).ready);

    // Servers down at start: the check failed and no run completed; /readyz says both.
    ReadinessInput down;
    down.failedCheck = QStringLiteral("postgres.reachable: connection refused");
    down.lastRunSummary = QStringLiteral("r2 failed: down");
    const Readiness r = evaluateReadiness(down, now);
    QVERIFY(!r.ready);
    QVERIFY2(r.reason.contains(QLatin1String("postgres.reachable")) &&
                 r.reason.contains(QLatin1String("no run has completed yet")) &&
                 r.reason.contains(QLatin1String("(last run: r2 failed: down)")),
             qPrintable(r.reason));
}

QTEST_GUILESS_MAIN(TestReadiness)
#include "test_readiness.moc"
