// `reclaim --daemon` without any server: it starts without QtGui, keeps running while every
// run fails, serves /healthz and a 503 /readyz, stops cleanly on a signal; a port in use or a
// bad configuration ends it at once with one clear line.
#include "daemonprocess.h"

#include <QFile>
#include <QJsonDocument>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace reclaim::test;

namespace {

const QString kSample = QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");

// A loopback port nothing listens on (bound, then released).
quint16 closedPort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    return s.serverPort();
}

QProcessEnvironment unreachableServers()
{
    QProcessEnvironment e;
    e.insert(QStringLiteral("RECLAIM_PG_URL"),
             QStringLiteral("postgresql://app:pg-s3cret-pw@127.0.0.1:%1/app").arg(closedPort()));
    e.insert(QStringLiteral("RECLAIM_REDIS_URL"),
             QStringLiteral("redis://:redis-s3cret-pw@127.0.0.1:%1/0").arg(closedPort()));
    return daemonEnvironment(e);
}

} // namespace

class TestDaemonStartup : public QObject
{
    Q_OBJECT
private slots:
    void keepsRunningWhileServersAreDown();
    void metricsPortInUseExitsWithOneLine();
    void invalidConfigurationExits();
    void metricsOffAndSigint();
    void logFileGetsTheSameLines();
    void unwritableLogFileIsRefused();
    void badIntervalExitsOne_data();
    void badIntervalExitsOne();
};

void TestDaemonStartup::keepsRunningWhileServersAreDown()
{
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start(
        {QStringLiteral("--config"), kSample, QStringLiteral("--interval"), QStringLiteral("1")}));
    QVERIFY2(d.waitForEvent(QStringLiteral("started"), 10000), d.rawStderr().constData());
    const quint16 port = d.metricsPort();
    QVERIFY(port > 0);
    // Every run fails (PostgreSQL is down) and the daemon keeps going, one run per interval.
    QVERIFY2(d.waitFor(
                 [](const QJsonObject &e) {
                     return e.value(QStringLiteral("event")).toString() == QLatin1String("run") &&
                            e.value(QStringLiteral("outcome")).toString() ==
                                QLatin1String("failed");
                 },
                 15000, 3),
             d.rawStderr().constData());
    QCOMPARE(d.process().state(), QProcess::Running);

    const HttpResult health = httpGet(port, QStringLiteral("/healthz"));
    QCOMPARE(health.status, 200);
    QCOMPARE(health.body, QByteArray("ok\n"));
    const HttpResult ready = httpGet(port, QStringLiteral("/readyz"));
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.contains("no run has completed yet") && ready.body.contains("failed"),
             ready.body.constData());
    const HttpResult metrics = httpGet(port, QStringLiteral("/metrics"));
    QCOMPARE(metrics.status, 200);
    QVERIFY(metricValue(metrics.body, QStringLiteral("reclaim_runs_total{outcome=\"failed\"}")) >=
            3);
    QCOMPARE(metricValue(metrics.body, QStringLiteral("reclaim_runs_total{outcome=\"completed\"}")),
             0.0);
    QCOMPARE(metricValue(metrics.body, QStringLiteral("reclaim_last_success_timestamp_seconds")),
             0.0);
    QCOMPARE(httpGet(port, QStringLiteral("/nothing-here")).status, 404);

    // Issue 18: every line of a run carries its run id, the run-start line included, so a
    // search for one id finds the whole run: the n-th run-start names the n-th run's id.
    const QList<QJsonObject> starts = d.eventsOf(QStringLiteral("run-start"));
    const QList<QJsonObject> runs = d.eventsOf(QStringLiteral("run"));
    QVERIFY(runs.size() >= 3 && starts.size() >= runs.size());
    QSet<QString> ids;
    for (qsizetype i = 0; i < runs.size(); ++i) {
        const QString id = runs.at(i).value(QStringLiteral("runId")).toString();
        QVERIFY2(!id.isEmpty(), QJsonDocument(runs.at(i)).toJson().constData());
        QCOMPARE(starts.at(i).value(QStringLiteral("runId")).toString(), id);
        QVERIFY2(starts.at(i).value(QStringLiteral("msg")).toString().contains(id),
                 QJsonDocument(starts.at(i)).toJson().constData());
        ids.insert(id);
        // Issue 18 item 7: the driver's error is one line, without QPSQL's own trailers.
        const QString detail = runs.at(i).value(QStringLiteral("detail")).toString();
        QVERIFY2(detail.contains(QLatin1String("Connection refused")), qPrintable(detail));
        QVERIFY2(!detail.contains(QLatin1Char('\n')), qPrintable(detail));
        QVERIFY2(!detail.contains(QLatin1String("QPSQL")), qPrintable(detail));
    }
    QCOMPARE(ids.size(), runs.size()); // one id per run

    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(5000));
    QCOMPARE(d.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(d.process().exitCode(), 0);
    QVERIFY(!d.eventsOf(QStringLiteral("stopped")).isEmpty());
    // JSON mode: every line is one JSON object; and no password ever reaches the log.
    QVERIFY2(d.strayLines().isEmpty(), qPrintable(d.strayLines().join(QLatin1Char('\n'))));
    QVERIFY(!d.rawStderr().contains("s3cret"));
    QVERIFY(d.rawStderr().contains("postgresql://app:***@127.0.0.1"));
}

void TestDaemonStartup::metricsPortInUseExitsWithOneLine()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start({QStringLiteral("--config"), kSample, QStringLiteral("--metrics-address"),
                     QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())}));
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 6);
    QCOMPARE(d.events().size(), 1);
    QVERIFY(d.strayLines().isEmpty());
    const QJsonObject line = d.events().first();
    QCOMPARE(line.value(QStringLiteral("event")).toString(), QStringLiteral("startup-failed"));
    const QString msg = line.value(QStringLiteral("msg")).toString();
    QVERIFY2(msg.contains(QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())) &&
                 msg.contains(QLatin1String("in use")),
             qPrintable(msg));
}

void TestDaemonStartup::invalidConfigurationExits()
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ \"connections\": ");
    f.close();
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start({QStringLiteral("--config"), f.fileName()}));
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 2);
    QCOMPARE(d.eventsOf(QStringLiteral("config-invalid")).size(), 1);
    QVERIFY(d.eventsOf(QStringLiteral("run-start")).isEmpty());
}

void TestDaemonStartup::metricsOffAndSigint()
{
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start({QStringLiteral("--config"), kSample, QStringLiteral("--metrics-address"),
                     QStringLiteral("off")}));
    QVERIFY(d.waitForEvent(QStringLiteral("run"), 10000));
    QCOMPARE(
        d.eventsOf(QStringLiteral("started")).first().value(QStringLiteral("metrics")).toString(),
        QStringLiteral("off"));
    d.sendSignal(SIGINT);
    QVERIFY(d.waitForExit(5000));
    QCOMPARE(d.process().exitCode(), 0);
    QVERIFY(d.eventsOf(QStringLiteral("stopping"))
                .first()
                .value(QStringLiteral("msg"))
                .toString()
                .startsWith(QLatin1String("SIGINT")));
}

void TestDaemonStartup::logFileGetsTheSameLines()
{
    QTemporaryDir dir;
    const QString logFile = dir.filePath(QStringLiteral("reclaim.log"));
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start({QStringLiteral("--config"), kSample, QStringLiteral("--log-file"), logFile}));
    QVERIFY(d.waitForEvent(QStringLiteral("run"), 10000));
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(5000));
    QCOMPARE(d.process().exitCode(), 0);
    QFile f(logFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray fileLines = f.readAll();
    QCOMPARE(fileLines, d.rawStderr());
    QVERIFY(fileLines.contains("\"event\":\"started\""));
    QVERIFY(!fileLines.contains("s3cret"));
}

void TestDaemonStartup::unwritableLogFileIsRefused()
{
    DaemonProcess d(unreachableServers());
    QVERIFY(d.start({QStringLiteral("--config"), kSample, QStringLiteral("--log-file"),
                     QStringLiteral("/proc/no-such-dir/reclaim.log")}));
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 1);
    QVERIFY2(
        d.rawStderr().startsWith("reclaim: cannot open the log file /proc/no-such-dir/reclaim.log"),
        d.rawStderr().constData());
    QVERIFY(d.eventsOf(QStringLiteral("run-start")).isEmpty());
}

void TestDaemonStartup::badIntervalExitsOne_data()
{
    QTest::addColumn<QString>("interval");
    // 2147484 s and 4294968 s are the values that once overflowed the millisecond timer.
    for (const char *v : {"0", "-5", "86401", "2147484", "4294968", "abc"})
        QTest::newRow(v) << QString::fromLatin1(v);
}

void TestDaemonStartup::badIntervalExitsOne()
{
    QFETCH(QString, interval);
    DaemonProcess d(unreachableServers());
    QVERIFY(
        d.start({QStringLiteral("--config"), kSample, QStringLiteral("--interval=") + interval}));
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 1);
    const QByteArray expected =
        "reclaim: --interval must be a whole number of seconds from 1 to 86400, not '" +
        interval.toUtf8() + "'\n";
    QVERIFY2(d.rawStderr().startsWith(expected), d.rawStderr().constData());
    QVERIFY(d.eventsOf(QStringLiteral("run-start")).isEmpty());
}

QTEST_GUILESS_MAIN(TestDaemonStartup)
#include "test_daemonstartup.moc"
