// The command line options the daemon adds or relies on: --daemon with --interval,
// --log-format, --log-file, --metrics-address, --dry-run; and what is refused.
#include "commandline.h"

#include <QTest>

using namespace reclaim;

class TestDaemonCommandLine : public QObject
{
    Q_OBJECT
private slots:
    void parses_data();
    void parses();
    void listenAddress_data();
    void listenAddress();
    void helpNamesTheDaemonExitCodes();
};

void TestDaemonCommandLine::parses_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error"); // empty: accepted
    QTest::addColumn<bool>("daemon");
    QTest::addColumn<int>("interval"); // 0: not given
    QTest::addColumn<QString>("logFormat");
    QTest::addColumn<QString>("logFile");
    QTest::addColumn<QString>("metrics");
    QTest::addColumn<bool>("dryRun");

    const QString def = QStringLiteral("127.0.0.1:9477");
    QTest::newRow("daemon defaults") << QStringList{QStringLiteral("--daemon")} << QString() << true
                                     << 0 << QStringLiteral("text") << QString() << def << false;
    QTest::newRow("daemon, everything")
        << QStringList{QStringLiteral("--daemon"),
                       QStringLiteral("--interval"),
                       QStringLiteral("2"),
                       QStringLiteral("--log-format"),
                       QStringLiteral("json"),
                       QStringLiteral("--log-file"),
                       QStringLiteral("/var/log/reclaim.log"),
                       QStringLiteral("--metrics-address"),
                       QStringLiteral("0.0.0.0:9100"),
                       QStringLiteral("--dry-run")}
        << QString() << true << 2 << QStringLiteral("json")
        << QStringLiteral("/var/log/reclaim.log") << QStringLiteral("0.0.0.0:9100") << true;
    QTest::newRow("metrics off") << QStringList{QStringLiteral("--daemon"),
                                                QStringLiteral("--metrics-address"),
                                                QStringLiteral("off")}
                                 << QString() << true << 0 << QStringLiteral("text") << QString()
                                 << QStringLiteral("off") << false;
    QTest::newRow("once still parses")
        << QStringList{QStringLiteral("--once"), QStringLiteral("--dry-run")} << QString() << false
        << 0 << QStringLiteral("text") << QString() << def << true;
    QTest::newRow("bad metrics address")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--metrics-address"),
                       QStringLiteral("9477")}
        << QStringLiteral("--metrics-address") << true << 0 << QString() << QString() << QString()
        << false;
    QTest::newRow("metrics port too big")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--metrics-address"),
                       QStringLiteral("127.0.0.1:65536")}
        << QStringLiteral("--metrics-address") << true << 0 << QString() << QString() << QString()
        << false;
    QTest::newRow("bad log format")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--log-format"),
                       QStringLiteral("xml")}
        << QStringLiteral("--log-format") << true << 0 << QString() << QString() << QString()
        << false;
    // --interval: the allowed range is 1..86400 s; everything else is refused with that range.
    for (const char *accepted : {"1", "86400"})
        QTest::addRow("interval %s", accepted)
            << QStringList{QStringLiteral("--daemon"), QStringLiteral("--interval"),
                           QString::fromLatin1(accepted)}
            << QString() << true << QString::fromLatin1(accepted).toInt() << QStringLiteral("text")
            << QString() << def << false;
    // 4294968 s wraps a 32-bit millisecond count to a tiny interval, 2147484 s to a negative one.
    for (const char *refused :
         {"0", "-5", "-1", "86401", "2147484", "4294968", "99999999999", "1.5", "abc", "5s", ""})
        QTest::addRow("interval '%s' refused", refused)
            << QStringList{QStringLiteral("--daemon"),
                           QStringLiteral("--interval=%1").arg(QString::fromLatin1(refused))}
            << QStringLiteral("--interval must be a whole number of seconds from 1 to 86400, "
                              "not '%1'")
                   .arg(QString::fromLatin1(refused))
            << true << 0 << QString() << QString() << QString() << false;
    QTest::newRow("interval negative as its own argument")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--interval"),
                       QStringLiteral("-5")}
        << QStringLiteral("from 1 to 86400, not '-5'") << true << 0 << QString() << QString()
        << QString() << false;
    QTest::newRow("daemon and once")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--once")}
        << QStringLiteral("cannot be combined") << true << 0 << QString() << QString() << QString()
        << false;
    QTest::newRow("json is for once")
        << QStringList{QStringLiteral("--daemon"), QStringLiteral("--json")}
        << QStringLiteral("--json") << true << 0 << QString() << QString() << QString() << false;
}

void TestDaemonCommandLine::parses()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    QFETCH(bool, daemon);
    QFETCH(int, interval);
    QFETCH(QString, logFormat);
    QFETCH(QString, logFile);
    QFETCH(QString, metrics);
    QFETCH(bool, dryRun);
    const CommandLineResult r = parseCommandLine(QStringList{QStringLiteral("reclaim")} + args);
    if (!error.isEmpty()) {
        QVERIFY(!r.options);
        QVERIFY2(r.error.contains(error), qPrintable(r.error));
        return;
    }
    QVERIFY2(r.options, qPrintable(r.error));
    const CommandLine &c = *r.options;
    QCOMPARE(c.mode == CommandLine::Mode::Daemon, daemon);
    QCOMPARE(c.intervalSeconds.value_or(0), interval);
    QCOMPARE(c.logFormat, logFormat);
    QCOMPARE(c.logFile, logFile);
    QCOMPARE(c.metricsAddress, metrics);
    QCOMPARE(c.dryRun, dryRun);
}

void TestDaemonCommandLine::listenAddress_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("enabled");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("loopback") << QStringLiteral("127.0.0.1:9477") << true << true
                              << QStringLiteral("127.0.0.1") << 9477;
    QTest::newRow("any port") << QStringLiteral("127.0.0.1:0") << true << true
                              << QStringLiteral("127.0.0.1") << 0;
    QTest::newRow("localhost") << QStringLiteral("localhost:9000") << true << true
                               << QStringLiteral("127.0.0.1") << 9000;
    QTest::newRow("ipv6") << QStringLiteral("[::1]:9477") << true << true << QStringLiteral("::1")
                          << 9477;
    QTest::newRow("off") << QStringLiteral("off") << true << false << QString() << 0;
    QTest::newRow("ipv6 without brackets")
        << QStringLiteral("::1:9477") << false << false << QString() << 0;
    QTest::newRow("no port") << QStringLiteral("127.0.0.1") << false << false << QString() << 0;
    QTest::newRow("empty port") << QStringLiteral("127.0.0.1:") << false << false << QString() << 0;
    QTest::newRow("host name") << QStringLiteral("metrics.example:9477") << false << false
                               << QString() << 0;
    QTest::newRow("port not a number")
        << QStringLiteral("127.0.0.1:http") << false << false << QString() << 0;
}

void TestDaemonCommandLine::listenAddress()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(bool, enabled);
    QFETCH(QString, host);
    QFETCH(int, port);
    const auto a = parseListenAddress(text);
    QCOMPARE(a.has_value(), valid);
    if (!a)
        return;
    QCOMPARE(a->enabled, enabled);
    if (!enabled)
        return;
    QCOMPARE(a->host.toString(), host);
    QCOMPARE(int(a->port), port);
}

void TestDaemonCommandLine::helpNamesTheDaemonExitCodes()
{
    const CommandLineResult r =
        parseCommandLine({QStringLiteral("reclaim"), QStringLiteral("--help")});
    QVERIFY(r.options);
    QVERIFY(r.helpText.contains(QLatin1String("SIGHUP")));
    QVERIFY(r.helpText.contains(QLatin1String("--metrics-address")));
    QVERIFY(r.helpText.contains(QLatin1String("6 the metrics address")));
}

QTEST_GUILESS_MAIN(TestDaemonCommandLine)
#include "test_daemoncommandline.moc"
