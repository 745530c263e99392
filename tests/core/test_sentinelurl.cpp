// The redis+sentinel:// parser: the sentinels in order, the master's name, the master's
// credentials and database; each bad URL refused with its real problem, no password in a message.
#include "config/connectionurl.h"

#include <QTest>

using namespace reclaim;

Q_DECLARE_METATYPE(QList<SentinelSpec::Node>)

class TestSentinelUrl : public QObject
{
    Q_OBJECT
private slots:
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void tlsForm();
};

namespace {
QList<SentinelSpec::Node> nodes(std::initializer_list<std::pair<const char *, int>> list)
{
    QList<SentinelSpec::Node> out;
    for (const auto &[host, port] : list)
        out << SentinelSpec::Node{QString::fromLatin1(host), port};
    return out;
}
} // namespace

void TestSentinelUrl::accepted_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QList<SentinelSpec::Node>>("sentinels");
    QTest::addColumn<QString>("master");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<int>("database");
    QTest::addColumn<QString>("redacted");

    QTest::newRow("two sentinels")
        << "redis+sentinel://host1:26379,host2:26380/mymaster"
        << nodes({{"host1", 26379}, {"host2", 26380}}) << "mymaster"
        << ""
        << "" << 0 << "redis+sentinel://host1:26379,host2:26380/mymaster/0";
    QTest::newRow("default port, database")
        << "redis+sentinel://s1,s2:5000,s3/cache-1/3"
        << nodes({{"s1", 26379}, {"s2", 5000}, {"s3", 26379}}) << "cache-1"
        << ""
        << "" << 3 << "redis+sentinel://s1:26379,s2:5000,s3:26379/cache-1/3";
    QTest::newRow("master credentials, encoded")
        << "redis+sentinel://app:qq7%2F%40zz9@s1:26379/mymaster/1" << nodes({{"s1", 26379}})
        << "mymaster"
        << "app"
        << "qq7/@zz9" << 1 << "redis+sentinel://app:***@s1:26379/mymaster/1";
    QTest::newRow("ipv6") << "redis+sentinel://[::1]:26379,127.0.0.1/m"
                          << nodes({{"::1", 26379}, {"127.0.0.1", 26379}}) << "m"
                          << ""
                          << "" << 0 << "redis+sentinel://[::1]:26379,127.0.0.1:26379/m/0";
    QTest::newRow("upper-case scheme") << "REDIS+SENTINEL://s1/m" << nodes({{"s1", 26379}}) << "m"
                                       << ""
                                       << "" << 0 << "redis+sentinel://s1:26379/m/0";
}

void TestSentinelUrl::accepted()
{
    QFETCH(QString, url);
    QFETCH(QList<SentinelSpec::Node>, sentinels);
    QFETCH(QString, master);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(int, database);
    QFETCH(QString, redacted);
    const auto r = parseRedisUrl(url);
    QVERIFY2(r.hasValue(), r ? "" : qPrintable(r.error()));
    QVERIFY(r->sentinel.has_value());
    QCOMPARE(r->sentinel->sentinels.size(), sentinels.size());
    for (qsizetype i = 0; i < sentinels.size(); ++i) {
        QCOMPARE(r->sentinel->sentinels.at(i).host, sentinels.at(i).host);
        QCOMPARE(r->sentinel->sentinels.at(i).port, sentinels.at(i).port);
    }
    QCOMPARE(r->sentinel->masterName, master);
    QCOMPARE(r->user, user);
    QCOMPARE(r->password, password);
    QCOMPARE(r->database, database);
    QCOMPARE(r->redacted(), redacted);
}

void TestSentinelUrl::refused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message");
    const QString form = QStringLiteral(
        "(expected redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/masterName"
        "[/database])");
    QTest::newRow("no master name")
        << "redis+sentinel://:qq7zz9@s1:26379" << QStringLiteral("no master name ") + form;
    QTest::newRow("empty master name")
        << "redis+sentinel://s1:26379/" << QStringLiteral("no master name ") + form;
    QTest::newRow("second sentinel without host") << "redis+sentinel://:qq7zz9@s1:26379,:26380/m"
                                                  << "sentinel 2: the host is missing";
    QTest::newRow("port out of range") << "redis+sentinel://s1:26379,s2:70000/m"
                                       << "sentinel 2: port 70000 is out of range (1 to 65535)";
    QTest::newRow("port not a number") << "redis+sentinel://s1:x/m"
                                       << "sentinel 1: port 'x' is not a number from 1 to 65535";
    QTest::newRow("database not a number") << "redis+sentinel://:qq7zz9@s1/m/zero"
                                           << "database 'zero' is not a number";
    QTest::newRow("path after the database")
        << "redis+sentinel://s1/m/0/1"
        << QStringLiteral("unexpected path after the master name ") + form;
    QTest::newRow("options") << "redis+sentinel://s1/m?sentinelPassword=qq7zz9"
                             << QStringLiteral("redis+sentinel:// takes no options after '?' or "
                                               "'#' ") +
                                    form;
    QTest::newRow("raw slash in the password")
        << "redis+sentinel://:qq7/zz9@s1/m"
        << "cannot tell where the user name and password end: percent-encode '/', '?', '#' and "
           "'@' in them (%2F, %3F, %23, %40)";
    QTest::newRow("master name with a space") << "redis+sentinel://s1/my%20master"
                                              << "master name 'my%20master' is not a plain name "
                                                 "(letters, digits, '.', '_', '-')";
}

void TestSentinelUrl::refused()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    const auto r = parseRedisUrl(url);
    QVERIFY(!r.hasValue());
    QCOMPARE(r.error(), message);
    QVERIFY2(!r.error().contains(QLatin1String("qq7")) && !r.error().contains(QLatin1String("zz9")),
             qPrintable(r.error()));
}

// rediss+sentinel://: TLS to the sentinels and to the master they name; plain otherwise.
void TestSentinelUrl::tlsForm()
{
    const auto tls = parseRedisUrl(QStringLiteral("rediss+sentinel://app:qq7zz9@s1,s2:5000/m/2"));
    QVERIFY2(tls.hasValue(), tls ? "" : qPrintable(tls.error()));
    QVERIFY(tls->tls.enabled);
    QCOMPARE(tls->sentinel->sentinels.size(), 2);
    QCOMPARE(tls->database, 2);
    QCOMPARE(tls->redacted(), QStringLiteral("rediss+sentinel://app:***@s1:26379,s2:5000/m/2"));
    QVERIFY(tls->sentinel->user.isEmpty() && tls->sentinel->password.isEmpty());
    const auto plain = parseRedisUrl(QStringLiteral("redis+sentinel://s1/m"));
    QVERIFY(plain.hasValue());
    QVERIFY(!plain->tls.enabled);
}

QTEST_GUILESS_MAIN(TestSentinelUrl)
#include "test_sentinelurl.moc"
