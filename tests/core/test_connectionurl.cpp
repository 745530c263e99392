// The connection URL parsers: each bad URL is refused with the real problem (port out of range,
// unknown or unsupported scheme, missing host), and a password never appears in a message.
#include "config/connectionurl.h"

#include <QTest>

using namespace reclaim;

namespace {

// Every password in these rows is built from these two halves, so a message that leaks any
// part of one is caught.
const QString kSecretHalves[] = {QStringLiteral("qq7"), QStringLiteral("zz9")};

void verifyNoSecret(const QString &message)
{
    for (const QString &half : kSecretHalves)
        QVERIFY2(!message.contains(half), qPrintable(message));
}

} // namespace

class TestConnectionUrl : public QObject
{
    Q_OBJECT
private slots:
    void redisRefused_data();
    void redisRefused();
    void redisAccepted_data();
    void redisAccepted();
    void redisForms_data();
    void redisForms();
    void passwordGivenApart();
    void postgresRefused_data();
    void postgresRefused();
    void postgresAccepted_data();
    void postgresAccepted();
    void postgresSocketIsNamed();
};

void TestConnectionUrl::redisRefused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message"); // the whole error

    const QString expected = QStringLiteral(
        " (expected redis[s]://[[user]:password@]host[:port][/database], "
        "redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/"
        "masterName[/database], redis[s]+cluster://[[user]:password@]host[:port][,host[:port]...] "
        "or unix://[[user]:password@]/path/redis.sock[?db=N])");
    QTest::newRow("port above 65535") << "redis://127.0.0.1:70000/0"
                                      << "port 70000 is out of range (1 to 65535)";
    QTest::newRow("port above 65535, with a password") << "redis://:qq7zz9@127.0.0.1:70000/0"
                                                       << "port 70000 is out of range (1 to 65535)";
    QTest::newRow("port 0") << "redis://127.0.0.1:0/0"
                            << "port 0 is out of range (1 to 65535)";
    QTest::newRow("port far out of range")
        << "redis://cache:99999999999999999999"
        << "port 99999999999999999999 is out of range (1 to 65535)";
    QTest::newRow("port not a number") << "redis://:qq7zz9@cache:six/0"
                                       << "port 'six' is not a number";
    QTest::newRow("unknown scheme")
        << "xyz://127.0.0.1:6379" << QStringLiteral("unknown scheme \"xyz\"") + expected;
    QTest::newRow("http") << "http://:qq7zz9@cache:6379"
                          << QStringLiteral("unknown scheme \"http\"") + expected;
    QTest::newRow("no scheme") << "127.0.0.1:6379" << QStringLiteral("not a URL") + expected;
    QTest::newRow("empty") << "" << QStringLiteral("not a URL") + expected;
    // hiredis would skip AUTH without a password and run as the default user: refused.
    QTest::newRow("user without a password")
        << "redis://reclaim@cache:6379/0"
        << "user 'reclaim' has no password: give user:password@ (percent-encoded), or drop the "
           "user name to connect as the default user";
    QTest::newRow("user with an empty password")
        << "rediss://reclaim:@cache:6380/0"
        << "user 'reclaim' has no password: give user:password@ (percent-encoded), or drop the "
           "user name to connect as the default user";
    QTest::newRow("unix socket user without a password")
        << "unix://reclaim@/run/redis/redis.sock"
        << "user 'reclaim' has no password: give user:password@ (percent-encoded), or drop the "
           "user name to connect as the default user";
    QTest::newRow("unix socket with a host")
        << "unix://localhost/run/redis/redis.sock"
        << "unix:// takes no host: write unix:///path/redis.sock (three slashes)";
    QTest::newRow("unix socket without a path")
        << "unix://"
        << "no socket path (expected unix:///path/redis.sock)";
    QTest::newRow("unix socket, root only") << "unix://:qq7zz9@/"
                                            << "no socket path (expected unix:///path/redis.sock)";
    QTest::newRow("unix socket, unknown option") << "unix:///run/redis.sock?database=1"
                                                 << "unknown option 'database' (only db=N)";
    QTest::newRow("unix socket, database not a number") << "unix:///run/redis.sock?db=one"
                                                        << "database 'one' is not a number";
    QTest::newRow("unix socket, raw slash in the password")
        << "unix://:qq7/zz9@/run/redis.sock"
        << "cannot tell where the user name and password end: percent-encode '/', '?', '#' and "
           "'@' in them (%2F, %3F, %23, %40)";
    QTest::newRow("tls, port out of range") << "rediss://:qq7zz9@cache:65536/0"
                                            << "port 65536 is out of range (1 to 65535)";
    QTest::newRow("missing host, port given") << "redis://:6379/0"
                                              << "the host is missing";
    QTest::newRow("missing host, nothing given") << "redis:///0"
                                                 << "the host is missing";
    QTest::newRow("missing host, password given") << "redis://:qq7zz9@/0"
                                                  << "the host is missing";
    QTest::newRow("missing host, password given, no path") << "redis://:qq7zz9@"
                                                           << "the host is missing";
    // A raw '/' in the password: the text after it must not be read as host and port.
    QTest::newRow("raw slash in the password")
        << "redis://:qq7/zz9@cache:6379/0"
        << "cannot tell where the user name and password end: percent-encode '/', '?', '#' and "
           "'@' in them (%2F, %3F, %23, %40)";
    QTest::newRow("raw hash in the password")
        << "redis://:qq7#zz9@cache:6379/0"
        << "cannot tell where the user name and password end: percent-encode '/', '?', '#' and "
           "'@' in them (%2F, %3F, %23, %40)";
    QTest::newRow("ipv6 without brackets")
        << "redis://::1:6379/0"
        << "more than one ':' after the host (an IPv6 host needs brackets, as in [::1]:port)";
    QTest::newRow("ipv6 unclosed") << "redis://[::1:6379/0"
                                   << "the IPv6 host has no closing ']'";
    QTest::newRow("database not a number") << "redis://:qq7zz9@cache:6379/zero"
                                           << "database 'zero' is not a number";
}

void TestConnectionUrl::redisRefused()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    const auto r = parseRedisUrl(url);
    QVERIFY(!r.hasValue());
    QCOMPARE(r.error(), message);
    verifyNoSecret(r.error());
}

void TestConnectionUrl::redisAccepted_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("password");
    QTest::addColumn<int>("database");
    QTest::newRow("plain") << "redis://127.0.0.1:6379/0"
                           << "127.0.0.1" << 6379 << "" << 0;
    QTest::newRow("default port") << "redis://cache/2"
                                  << "cache" << 6379 << "" << 2;
    QTest::newRow("empty port is the default") << "redis://cache:/2"
                                               << "cache" << 6379 << "" << 2;
    QTest::newRow("lowest port") << "redis://cache:1"
                                 << "cache" << 1 << "" << 0;
    QTest::newRow("highest port") << "redis://cache:65535"
                                  << "cache" << 65535 << "" << 0;
    QTest::newRow("encoded password") << "redis://:qq7%2F%40zz9@cache:6380/1"
                                      << "cache" << 6380 << "qq7/@zz9" << 1;
    QTest::newRow("ipv6") << "redis://user:qq7zz9@[::1]:6390/3"
                          << "::1" << 6390 << "qq7zz9" << 3;
    QTest::newRow("upper-case scheme") << "REDIS://cache:6379"
                                       << "cache" << 6379 << "" << 0;
}

void TestConnectionUrl::redisAccepted()
{
    QFETCH(QString, url);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, password);
    QFETCH(int, database);
    const auto r = parseRedisUrl(url);
    QVERIFY2(r.hasValue(), r ? "" : qPrintable(r.error()));
    QCOMPARE(r->host, host);
    QCOMPARE(r->port, port);
    QCOMPARE(r->password, password);
    QCOMPARE(r->database, database);
    verifyNoSecret(r->redacted());
}

// rediss:// and unix:// and ACL users: what each form connects to, and how it is logged.
void TestConnectionUrl::redisForms_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<int>("database");
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("redacted");
    QTest::newRow("tls") << "rediss://cache.internal:6380/1"
                         << ""
                         << "" << true << "" << 1 << "cache.internal:6380 (TLS)"
                         << "rediss://cache.internal:6380/1";
    QTest::newRow("tls, acl user") << "rediss://reclaim:qq7%40zz9@cache:6380"
                                   << "reclaim"
                                   << "qq7@zz9" << true << "" << 0 << "cache:6380 (TLS)"
                                   << "rediss://reclaim:***@cache:6380/0";
    QTest::newRow("acl user") << "redis://reclaim:qq7zz9@cache"
                              << "reclaim"
                              << "qq7zz9" << false << "" << 0 << "cache:6379"
                              << "redis://reclaim:***@cache:6379/0";
    QTest::newRow("password only: the default user") << "redis://:qq7zz9@cache"
                                                     << ""
                                                     << "qq7zz9" << false << "" << 0 << "cache:6379"
                                                     << "redis://:***@cache:6379/0";
    QTest::newRow("unix socket") << "unix:///run/redis/redis.sock"
                                 << ""
                                 << "" << false << "/run/redis/redis.sock" << 0
                                 << "unix socket /run/redis/redis.sock"
                                 << "unix:///run/redis/redis.sock?db=0";
    QTest::newRow("unix socket, acl user, database")
        << "unix://reclaim:qq7%2Fzz9@/tmp/a%20dir/redis.sock?db=3"
        << "reclaim"
        << "qq7/zz9" << false << "/tmp/a dir/redis.sock" << 3 << "unix socket /tmp/a dir/redis.sock"
        << "unix://reclaim:***@/tmp/a dir/redis.sock?db=3";
}

void TestConnectionUrl::redisForms()
{
    QFETCH(QString, url);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(bool, tls);
    QFETCH(QString, socket);
    QFETCH(int, database);
    QFETCH(QString, server);
    QFETCH(QString, redacted);
    const auto r = parseRedisUrl(url);
    QVERIFY2(r.hasValue(), r ? "" : qPrintable(r.error()));
    QCOMPARE(r->user, user);
    QCOMPARE(r->password, password);
    QCOMPARE(r->tls.enabled, tls);
    QCOMPARE(r->socketPath, socket);
    QCOMPARE(r->isSocket(), !socket.isEmpty());
    QCOMPARE(r->database, database);
    QCOMPARE(r->serverName(), server);
    QCOMPARE(r->redacted(), redacted);
    verifyNoSecret(r->redacted());
    verifyNoSecret(redactSecrets(url));
}

// The console keeps its profile URL without the password and takes the password apart: the
// user alone parses there, and only there.
void TestConnectionUrl::passwordGivenApart()
{
    for (const QString &url : {QStringLiteral("rediss://reclaim@cache:6380/0"),
                               QStringLiteral("unix://reclaim@/run/redis.sock")}) {
        QVERIFY(!parseRedisUrl(url));
        const auto r = parseRedisUrl(url, RedisPassword::GivenApart);
        QVERIFY2(r, r ? "" : qPrintable(r.error()));
        QCOMPARE(r->user, QStringLiteral("reclaim"));
        QVERIFY(r->password.isEmpty());
    }
}

void TestConnectionUrl::postgresRefused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message");

    const QString expected =
        QStringLiteral(" (expected postgresql://user[:password]@host[:port]/database)");
    QTest::newRow("port above 65535") << "postgresql://app:qq7zz9@db:70000/app"
                                      << "port 70000 is out of range (1 to 65535)";
    QTest::newRow("port 0") << "postgresql://app@db:0/app"
                            << "port 0 is out of range (1 to 65535)";
    QTest::newRow("port not a number") << "postgres://app:qq7zz9@db:pg/app"
                                       << "port 'pg' is not a number";
    QTest::newRow("unknown scheme")
        << "mysql://app:qq7zz9@db/app" << QStringLiteral("unknown scheme \"mysql\"") + expected;
    QTest::newRow("no scheme") << "app:qq7zz9@db/app" << QStringLiteral("not a URL") + expected;
    const QString socketHint = QStringLiteral(
        " (a Unix socket is given by its directory: postgresql:///database?host=/dir)");
    QTest::newRow("missing host") << "postgresql:///app"
                                  << QStringLiteral("the host is missing") + socketHint;
    QTest::newRow("missing host, password given")
        << "postgresql://app:qq7zz9@:5432/app"
        << QStringLiteral("the host is missing") + socketHint;
    QTest::newRow("host in the URL and as an option")
        << "postgresql://app:qq7zz9@db/app?host=/run/postgresql"
        << "the host is given twice, in the URL and as ?host=; give a Unix socket as "
           "postgresql:///database?host=/dir";
    QTest::newRow("socket, port option not a port")
        << "postgresql://app:qq7zz9@/app?host=/run/postgresql&port=70000"
        << "option 'port': '70000' is not a port (1 to 65535)";
    QTest::newRow("raw question mark in the password")
        << "postgresql://app:qq7?zz9@db/app"
        << "cannot tell where the user name and password end: percent-encode '/', '?', '#' and "
           "'@' in them (%2F, %3F, %23, %40)";
    QTest::newRow("no database") << "postgresql://app:qq7zz9@db:5432"
                                 << QStringLiteral("no database name") + expected;
    QTest::newRow("bad option name") << "postgresql://app:qq7zz9@db/app?ssl-mode=require"
                                     << "invalid option name 'ssl-mode'";
}

void TestConnectionUrl::postgresRefused()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    const auto r = parsePostgresUrl(url);
    QVERIFY(!r.hasValue());
    QCOMPARE(r.error(), message);
    verifyNoSecret(r.error());
}

void TestConnectionUrl::postgresAccepted_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("database");
    QTest::addColumn<QString>("options");
    QTest::newRow("plain") << "postgresql://app:qq7zz9@db.internal:6543/prod"
                           << "db.internal" << 6543 << "qq7zz9"
                           << "prod"
                           << "";
    QTest::newRow("short scheme, default port, option") << "postgres://app@db/app?sslmode=require"
                                                        << "db" << 5432 << ""
                                                        << "app"
                                                        << "sslmode='require'";
    QTest::newRow("a value with a space is one conninfo value")
        << "postgres://app@db/app?application_name=night%20shift"
        << "db" << 5432 << ""
        << "app"
        << "application_name='night shift'";
    QTest::newRow("quote and backslash escaped")
        << "postgres://app@db/app?application_name=o'brien%5C"
        << "db" << 5432 << ""
        << "app"
        << "application_name='o\\'brien\\\\'";
    QTest::newRow("ipv6") << "postgresql://app@[::1]:5433/app"
                          << "::1" << 5433 << ""
                          << "app"
                          << "";
    QTest::newRow("highest port") << "postgresql://app@db:65535/app"
                                  << "db" << 65535 << ""
                                  << "app"
                                  << "";
    // libpq's socket form: the directory is the host, ?port names the socket file.
    QTest::newRow("unix socket") << "postgresql:///app?host=/run/postgresql"
                                 << "/run/postgresql" << 5432 << ""
                                 << "app"
                                 << "";
    QTest::newRow("unix socket, encoded directory with a space, port and user")
        << "postgresql://app:qq7zz9@/app?host=%2Ftmp%2Fpg%20sock&port=5433&sslmode=disable"
        << "/tmp/pg sock" << 5433 << "qq7zz9"
        << "app"
        << "sslmode='disable'";
    QTest::newRow("TLS files with spaces are one value each")
        << "postgresql://app:qq7zz9@db/app?sslmode=verify-full&sslrootcert=/etc/my%20ca/root.crt"
           "&sslcert=/etc/my%20ca/client.crt&sslkey=/etc/my%20ca/client.key"
        << "db" << 5432 << "qq7zz9"
        << "app"
        << "sslmode='verify-full';sslrootcert='/etc/my ca/root.crt';"
           "sslcert='/etc/my ca/client.crt';sslkey='/etc/my ca/client.key'";
}

void TestConnectionUrl::postgresAccepted()
{
    QFETCH(QString, url);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, password);
    QFETCH(QString, database);
    QFETCH(QString, options);
    const auto r = parsePostgresUrl(url);
    QVERIFY2(r.hasValue(), r ? "" : qPrintable(r.error()));
    QCOMPARE(r->host, host);
    QCOMPARE(r->port, port);
    QCOMPARE(r->password, password);
    QCOMPARE(r->database, database);
    QCOMPARE(r->options, options);
    verifyNoSecret(r->redacted());
}

void TestConnectionUrl::postgresSocketIsNamed()
{
    const auto r = parsePostgresUrl(
        QStringLiteral("postgresql://app:qq7zz9@/app?host=%2Ftmp%2Fpg%20sock&port=5433"));
    QVERIFY2(r.hasValue(), r ? "" : qPrintable(r.error()));
    QVERIFY(r->isSocket());
    QCOMPARE(r->redacted(), QStringLiteral("postgresql://app:***@/app?host=/tmp/pg sock "
                                           "(Unix socket /tmp/pg sock/.s.PGSQL.5433)"));
    const auto tcp = parsePostgresUrl(QStringLiteral("postgresql://app@db/app"));
    QVERIFY(tcp.hasValue());
    QVERIFY(!tcp->isSocket());
}

QTEST_GUILESS_MAIN(TestConnectionUrl)
#include "test_connectionurl.moc"
