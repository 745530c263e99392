// /readyz's rule: ready only while a run that reached a decision finished within two intervals.
#include "daemon/readiness.h"

#include <QTest>

using namespace reclaim;

class TestReadiness : public QObject
{
    Q_OBJECT
private slots:
    void readiness_data();
    void readiness();
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

QTEST_GUILESS_MAIN(TestReadiness)
#include "test_readiness.moc"
