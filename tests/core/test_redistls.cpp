// Redis the way companies run it, against real redis-server processes this test starts on
// loopback with certificates it makes: TLS (good, wrong CA, wrong host name, expired, client
// certificate required), ACL users (wrong password, no EVALSHA, no key access) and a Unix socket.
// Every failure is a typed error naming the server and the reason; a run that cannot look is
// UNKNOWN or skipped, never ABSENT; the password never shows.
#include "preflight/preflight.h"
#include "redis/redisconnection.h"
#include "redisserverprocess.h"
#include "service/engine.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "support/testcerts.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <memory>

using namespace reclaim;
using namespace reclaim::test;
using namespace std::chrono_literals;

namespace {

const QString kPassword = QStringLiteral("pw-7f3kq9");
const QString kLockKeys = QStringLiteral("~lock:job-recovery*"); // run.lockKey's default

RunRequest request(bool dryRun)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.dryRun = dryRun;
    r.actor =
        Actor{QStringLiteral("test"), QStringLiteral("test-host"), QStringLiteral("tester"), {}};
    return r;
}

QStringList tlsServerArgs(int tlsPort, const QString &cert, const QString &key, const QString &ca,
                          bool requireClientCert)
{
    return {QStringLiteral("--tls-port"),
            QString::number(tlsPort),
            QStringLiteral("--tls-cert-file"),
            cert,
            QStringLiteral("--tls-key-file"),
            key,
            QStringLiteral("--tls-ca-cert-file"),
            ca,
            QStringLiteral("--tls-auth-clients"),
            requireClientCert ? QStringLiteral("yes") : QStringLiteral("no")};
}

RedisEndpoint plain(int port)
{
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = port;
    return e;
}

RedisEndpoint tls(int port, const QString &ca)
{
    RedisEndpoint e = plain(port);
    e.tls.enabled = true;
    e.tls.caFile = ca;
    return e;
}

// Every candidate's verdict, by row id.
QMap<QString, Verdict> verdicts(const RunReport &report)
{
    QMap<QString, Verdict> out;
    for (const DomainReport &d : report.domains)
        for (const CandidateVerdict &v : d.candidates)
            out.insert(d.name + QLatin1Char('/') + v.candidate.id, v.verdict);
    return out;
}

int count(const RunReport &report, Verdict verdict)
{
    int n = 0;
    for (const DomainReport &d : report.domains)
        n += d.count(verdict);
    return n;
}

} // namespace

class TestRedisTls : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_certDir;
    TestCerts m_certs;
    // Plain, TLS (no client certificate asked) and a Unix socket on one server; then one
    // server each for mutual TLS, a certificate for the wrong host and an expired one.
    RedisServerProcess m_main;
    RedisServerProcess m_mutual;
    RedisServerProcess m_wrongHost;
    RedisServerProcess m_expired;
    int m_plainPort = 0;
    int m_tlsPort = 0;
    int m_mutualPort = 0;
    int m_wrongHostPort = 0;
    int m_expiredPort = 0;
    QString m_socket;

    RedisConnection admin()
    {
        auto c = RedisConnection::open(plain(m_plainPort), 3000ms);
        if (!c)
            qFatal("admin connection: %s", qPrintable(c.error().message));
        return std::move(*c);
    }

    void verifyTlsFailure(const RedisEndpoint &e, const QString &reason)
    {
        auto c = RedisConnection::open(e, 2000ms);
        QVERIFY(!c);
        qInfo().noquote() << c.error().describe(); // what an operator reads, in the test log
        QVERIFY2(c.error().kind == RedisError::Kind::Tls, qPrintable(c.error().describe()));
        QVERIFY2(c.error().message.contains(e.serverName()), qPrintable(c.error().message));
        QVERIFY2(c.error().message.contains(reason, Qt::CaseInsensitive),
                 qPrintable(c.error().message));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_certs.make(m_certDir.path()), qPrintable(m_certs.error()));
        m_plainPort = RedisServerProcess::freePort();
        m_tlsPort = RedisServerProcess::freePort();
        m_socket = m_main.dir() + QStringLiteral("/redis.sock");
        QVERIFY2(
            m_main.start(QStringList{QStringLiteral("--port"), QString::number(m_plainPort),
                                     QStringLiteral("--unixsocket"), m_socket,
                                     QStringLiteral("--unixsocketperm"), QStringLiteral("700")} +
                         tlsServerArgs(m_tlsPort, m_certs.serverCert(), m_certs.serverKey(),
                                       m_certs.ca(), false)),
            qPrintable(m_main.error()));
        m_mutualPort = RedisServerProcess::freePort();
        QVERIFY2(m_mutual.start(QStringList{QStringLiteral("--port"), QStringLiteral("0")} +
                                tlsServerArgs(m_mutualPort, m_certs.serverCert(),
                                              m_certs.serverKey(), m_certs.ca(), true)),
                 qPrintable(m_mutual.error()));
        m_wrongHostPort = RedisServerProcess::freePort();
        QVERIFY2(m_wrongHost.start(QStringList{QStringLiteral("--port"), QStringLiteral("0")} +
                                   tlsServerArgs(m_wrongHostPort, m_certs.wrongHostCert(),
                                                 m_certs.path(QStringLiteral("wronghost.key")),
                                                 m_certs.ca(), false)),
                 qPrintable(m_wrongHost.error()));
        m_expiredPort = RedisServerProcess::freePort();
        QVERIFY2(m_expired.start(QStringList{QStringLiteral("--port"), QStringLiteral("0")} +
                                 tlsServerArgs(m_expiredPort, m_certs.expiredCert(),
                                               m_certs.serverKey(), m_certs.ca(), false)),
                 qPrintable(m_expired.error()));

        RedisConnection a = admin();
        const QList<RedisCommand> users{
            // Limited to the BullMQ prefix's keys and the lock's: what a run needs.
            {"ACL", "SETUSER", "reclaimtest", "on", ">" + kPassword.toUtf8(), "~bull:*",
             kLockKeys.toUtf8(), "+@all"},
            {"ACL", "SETUSER", "noscripts", "on", ">" + kPassword.toUtf8(), "~*", "+@all", "-eval",
             "-evalsha"},
            {"ACL", "SETUSER", "lockonly", "on", ">" + kPassword.toUtf8(), kLockKeys.toUtf8(),
             "+@all"}};
        for (const RedisCommand &cmd : users) {
            auto r = a.command(cmd);
            QVERIFY2(r, r ? "" : qPrintable(r.error().message));
        }
    }

    // The bytes, the pipeline and large replies over TLS, as over plain TCP.
    void tlsCarriesCommandsPipelinesAndLargeValues()
    {
        auto c = RedisConnection::open(tls(m_tlsPort, m_certs.ca()), 2000ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
        QCOMPARE(c->endpointName(), QStringLiteral("127.0.0.1:%1 (TLS)").arg(m_tlsPort));
        const QByteArray big(3 * 1024 * 1024, 'x'); // many TLS records each way
        QVERIFY(c->command({"SET", "tls:big", big}));
        auto got = c->command({"GET", "tls:big"});
        QVERIFY(got);
        QCOMPARE(got->string.size(), big.size());
        QVERIFY(got->string == big);
        QList<RedisCommand> batch;
        for (int i = 0; i < 2000; ++i)
            batch << RedisCommand{"INCRBY", "tls:counter", QByteArray::number(i)};
        const qint64 tripsBefore = c->roundTrips();
        auto replies = c->pipeline(batch);
        QVERIFY(replies);
        QCOMPARE(replies->size(), 2000);
        QCOMPARE(replies->last()->integer, 1999LL * 2000 / 2);
        QCOMPARE(c->roundTrips() - tripsBefore, 1);
        auto err = c->command({"INCR", "tls:big"}); // a server error keeps the connection
        QVERIFY(!err);
        QCOMPARE(err.error().kind, RedisError::Kind::Server);
        QVERIFY(!c->isBroken());
        QVERIFY(c->command({"PING"}));
    }

    void tlsHandshakeFailuresAreTlsErrors_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("ca");
        QTest::addColumn<QString>("serverName");
        QTest::addColumn<QString>("reason");
        QTest::newRow("wrong CA") << "main" << m_certs.otherCa() << ""
                                  << "untrusted";
        QTest::newRow("wrong host name") << "wronghost" << m_certs.ca() << ""
                                         << "host name did not match";
        QTest::newRow("server name not in the certificate")
            << "main" << m_certs.ca() << "redis.example"
            << "host name did not match";
        QTest::newRow("expired certificate") << "expired" << m_certs.ca() << ""
                                             << "expired";
        QTest::newRow("system CAs do not know the test CA") << "main" << QString() << ""
                                                            << "untrusted";
    }

    void tlsHandshakeFailuresAreTlsErrors()
    {
        QFETCH(QString, server);
        QFETCH(QString, ca);
        QFETCH(QString, serverName);
        QFETCH(QString, reason);
        const int port = server == QLatin1String("wronghost") ? m_wrongHostPort
                         : server == QLatin1String("expired") ? m_expiredPort
                                                              : m_tlsPort;
        RedisEndpoint e = tls(port, ca);
        e.tls.serverName = serverName;
        verifyTlsFailure(e, reason);
    }

    void serverNameIsWhatIsVerified()
    {
        RedisEndpoint e = tls(m_tlsPort, m_certs.ca());
        e.host = QStringLiteral("127.0.0.1");
        e.tls.serverName = QStringLiteral("localhost"); // in the certificate's SAN
        auto c = RedisConnection::open(e, 2000ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
    }

    void mutualTls_data()
    {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("reason"); // empty: connects
        QTest::newRow("client certificate from the CA")
            << m_certs.clientCert() << m_certs.clientKey() << QString();
        // #31 item 7: the server trusts only the CA; the intermediate is in the file.
        QTest::newRow("client certificate from an intermediate, the chain in its file")
            << m_certs.chainedClientCert() << m_certs.chainedClientKey() << QString();
        QTest::newRow("the same certificate without its intermediate")
            << m_certs.chainedClientLeaf() << m_certs.chainedClientKey() << "TLS";
        QTest::newRow("no client certificate") << QString() << QString() << "client certificate";
        QTest::newRow("client certificate from a CA the server does not trust")
            << m_certs.strangerCert() << m_certs.strangerKey() << "TLS";
    }

    void mutualTls()
    {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, reason);
        RedisEndpoint e = tls(m_mutualPort, m_certs.ca());
        e.tls.certFile = cert;
        e.tls.keyFile = key;
        if (!reason.isEmpty()) {
            verifyTlsFailure(e, reason);
            return;
        }
        auto c = RedisConnection::open(e, 2000ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
        QVERIFY(c->command({"SET", "mtls", "1"}));
    }

    // Verification off: the wrong host and the expired certificate connect, and the endpoint
    // says so loudly.
    void insecureSkipsVerificationAndSaysSo()
    {
        for (int port : {m_wrongHostPort, m_expiredPort}) {
            RedisEndpoint e = tls(port, {});
            e.tls.insecure = true;
            auto c = RedisConnection::open(e, 2000ms);
            QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
            QVERIFY(c->command({"PING"}));
            QVERIFY(e.tls.insecureWarning(e.serverName()).contains(QLatin1String("OFF")));
        }
    }

    // A frozen TLS server: connect and command both fail as timeouts, within their bound.
    void frozenTlsServerTimesOut()
    {
        RedisServerProcess frozen;
        const int port = RedisServerProcess::freePort();
        QVERIFY2(frozen.start(QStringList{QStringLiteral("--port"), QStringLiteral("0")} +
                              tlsServerArgs(port, m_certs.serverCert(), m_certs.serverKey(),
                                            m_certs.ca(), false)),
                 qPrintable(frozen.error()));
        auto c = RedisConnection::open(tls(port, m_certs.ca()), 300ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
        frozen.pause();
        QElapsedTimer t;
        t.start();
        auto r = c->command({"PING"});
        QVERIFY(!r);
        QCOMPARE(r.error().kind, RedisError::Kind::Timeout);
        QVERIFY2(t.elapsed() < 1500, qPrintable(QString::number(t.elapsed())));
        QVERIFY(c->isBroken());
        t.restart();
        auto again = RedisConnection::open(tls(port, m_certs.ca()), 300ms);
        QVERIFY(!again);
        QVERIFY2(again.error().kind == RedisError::Kind::Timeout,
                 qPrintable(again.error().message));
        QVERIFY2(t.elapsed() < 1500, qPrintable(QString::number(t.elapsed())));
        frozen.resume();
    }

    // QSslSocket's waitFor*() need no event loop: a connection opened and used on a worker
    // thread, as the console's and the daemon's are.
    void tlsWorksOnAWorkerThread()
    {
        QString outcome = QStringLiteral("not run");
        const RedisEndpoint e = tls(m_tlsPort, m_certs.ca());
        std::unique_ptr<QThread> worker(QThread::create([&] {
            auto c = RedisConnection::open(e, 2000ms);
            if (!c) {
                outcome = c.error().message;
                return;
            }
            auto r = c->pipeline({{"SET", "thread", "yes"}, {"GET", "thread"}});
            outcome = r ? QString::fromUtf8(r->at(1)->string) : r.error().message;
        }));
        worker->start();
        QVERIFY(worker->wait(10000));
        QCOMPARE(outcome, QStringLiteral("yes"));
    }

    void unixSocket()
    {
        auto parsed = parseRedisUrl(QStringLiteral("unix://") + m_socket + QStringLiteral("?db=2"));
        QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error()));
        auto c = RedisConnection::open(*parsed, 2000ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
        QCOMPARE(c->endpointName(), QStringLiteral("unix socket %1").arg(m_socket));
        QVERIFY(c->command({"SET", "via-socket", "1"}));
        // The same server over TCP sees the key in database 2.
        RedisConnection a = admin();
        QVERIFY(a.command({"SELECT", "2"}));
        QCOMPARE(a.command({"GET", "via-socket"})->string, QByteArray("1"));

        RedisEndpoint missing;
        missing.socketPath = m_socket + QStringLiteral(".gone");
        auto none = RedisConnection::open(missing, 500ms);
        QVERIFY(!none);
        QCOMPARE(none.error().kind, RedisError::Kind::Connect);
        QVERIFY2(none.error().message.contains(missing.socketPath),
                 qPrintable(none.error().message));
    }

    void aclWrongPasswordIsAnAuthErrorWithoutThePassword_data()
    {
        QTest::addColumn<bool>("overTls");
        QTest::newRow("tcp") << false;
        QTest::newRow("tls") << true;
    }

    void aclWrongPasswordIsAnAuthErrorWithoutThePassword()
    {
        QFETCH(bool, overTls);
        RedisEndpoint e = overTls ? tls(m_tlsPort, m_certs.ca()) : plain(m_plainPort);
        e.user = QStringLiteral("reclaimtest");
        e.password = kPassword + QStringLiteral("-wrong");
        auto c = RedisConnection::open(e, 2000ms);
        QVERIFY(!c);
        QCOMPARE(c.error().kind, RedisError::Kind::Auth);
        QVERIFY2(c.error().message.contains(QLatin1String("user 'reclaimtest'")),
                 qPrintable(c.error().message));
        QVERIFY2(c.error().message.contains(QLatin1String("WRONGPASS")),
                 qPrintable(c.error().message));
        QVERIFY(!c.error().describe().contains(kPassword));
    }

    void noPermissionNamesTheCommandAndTheUser()
    {
        RedisEndpoint e = plain(m_plainPort);
        e.user = QStringLiteral("noscripts");
        e.password = kPassword;
        auto c = RedisConnection::open(e, 2000ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().describe()));
        auto r = c->command({"EVAL", "return 1", "0"});
        QVERIFY(!r);
        QCOMPARE(r.error().kind, RedisError::Kind::NoPermission);
        QVERIFY2(r.error().message.contains(QLatin1String("user 'noscripts' may not run EVAL")),
                 qPrintable(r.error().message));
        QVERIFY(!r.error().message.contains(kPassword));
        QVERIFY(!c->isBroken()); // a refusal is a reply, not a broken connection
        QVERIFY(c->command({"PING"}));
    }

    // A real bullmq incident produced through the plain port and read by the Engine over TLS as
    // an ACL user limited to the prefix's and the lock's keys: the same verdicts as over plain
    // TCP, and a real run that takes, uses and releases the lock.
    void engineOverTlsWithAnAclUserSeesWhatPlainTcpSees()
    {
        SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        env.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(m_plainPort);
        resetSandbox(env);
        migrate(env);
        SeededIncident incident(env, 1, 1, true);
        QVERIFY(incident.ready());

        ReclaimConfig plainConfig = sampleConfig(env);
        const RunReport overPlain = Engine(plainConfig).run(request(true));
        QCOMPARE(overPlain.outcome, RunReport::Outcome::Completed);

        ReclaimConfig tlsConfig = plainConfig;
        tlsConfig.redis = tls(m_tlsPort, m_certs.ca());
        tlsConfig.redis.user = QStringLiteral("reclaimtest");
        tlsConfig.redis.password = kPassword;
        Engine engine(tlsConfig);
        const RunReport overTls = engine.run(request(true));
        QCOMPARE(overTls.outcome, RunReport::Outcome::Completed);
        QCOMPARE(count(overTls, Verdict::Unknown), 0);
        QVERIFY(count(overTls, Verdict::Absent) > 0);
        QVERIFY(count(overTls, Verdict::Scheduled) > 0);
        QCOMPARE(verdicts(overTls), verdicts(overPlain));

        const RunReport real = engine.run(request(false));
        QVERIFY2(real.outcome == RunReport::Outcome::Completed, qPrintable(real.outcomeDetail));
        QCOMPARE(real.lock.state, LockReport::State::Acquired);
        QVERIFY(real.lock.released);
        QCOMPARE(count(real, Verdict::Unknown), 0);

        // The preflight says what the connection is: verified TLS passes; verification off warns.
        const CheckReport checked = runPreflight(tlsConfig);
        const CheckItem *tlsItem = checked.item(QStringLiteral("redis.tls"));
        QVERIFY(tlsItem);
        QCOMPARE(tlsItem->status, CheckStatus::Pass);
        QVERIFY2(tlsItem->summary.contains(QLatin1String("certificate verified")),
                 qPrintable(tlsItem->summary));
        QCOMPARE(checked.item(QStringLiteral("redis.reachable"))->status, CheckStatus::Pass);
        ReclaimConfig insecureConfig = tlsConfig;
        insecureConfig.redis.tls.caFile.clear();
        insecureConfig.redis.tls.insecure = true;
        const CheckReport loose = runPreflight(insecureConfig);
        QCOMPARE(loose.item(QStringLiteral("redis.tls"))->status, CheckStatus::Warn);
        QVERIFY(!QJsonDocument(loose.toJson()).toJson().contains(kPassword.toUtf8()));
    }

    // Missing permissions: never ABSENT. No EVALSHA: the lock cannot be taken and the run is
    // skipped, saying which command and user. No access to the queue keys: the lock is taken
    // but every lookup is refused, so every candidate is UNKNOWN.
    void missingPermissionIsNeverAbsent()
    {
        SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        env.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(m_plainPort);
        resetSandbox(env);
        migrate(env);
        SeededIncident incident(env, 1, 1, true);
        QVERIFY(incident.ready());
        ReclaimConfig config = sampleConfig(env);
        config.redis = tls(m_tlsPort, m_certs.ca());
        config.redis.password = kPassword;

        config.redis.user = QStringLiteral("noscripts");
        const RunReport noScripts = Engine(config).run(request(false));
        QCOMPARE(noScripts.outcome, RunReport::Outcome::SkippedUnreachable);
        QVERIFY2(
            noScripts.lock.error.contains(QLatin1String("user 'noscripts' may not run EVALSHA")),
            qPrintable(noScripts.lock.error));
        QCOMPARE(count(noScripts, Verdict::Absent), 0);
        QVERIFY(noScripts.actions.isEmpty());

        config.redis.user = QStringLiteral("lockonly");
        const RunReport lockOnly = Engine(config).run(request(false));
        QVERIFY2(lockOnly.outcome == RunReport::Outcome::Completed,
                 qPrintable(lockOnly.outcomeDetail));
        QCOMPARE(lockOnly.lock.state, LockReport::State::Acquired);
        QCOMPARE(count(lockOnly, Verdict::Absent), 0);
        QCOMPARE(count(lockOnly, Verdict::Scheduled), 0);
        QVERIFY(count(lockOnly, Verdict::Unknown) > 0);
        for (const DomainReport &d : lockOnly.domains)
            for (const CandidateVerdict &v : d.candidates)
                QVERIFY2(v.unknownReason.contains(QLatin1String("NOPERM")),
                         qPrintable(v.unknownReason));
        QVERIFY(lockOnly.actions.isEmpty());
        QVERIFY(!lockOnly.outcomeDetail.contains(kPassword));
    }

    // `reclaim --once` end to end: a refused password and verification turned off, as the
    // operator sees them on stdout and stderr; the password in neither.
    void onceOutputNamesTheFailureButNeverThePassword_data()
    {
        QTest::addColumn<QString>("password");
        QTest::addColumn<bool>("insecure");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrHas");
        QTest::newRow("wrong password") << kPassword + QStringLiteral("-wrong") << false << 4
                                        << "authentication to 127.0.0.1:%1 (TLS) as user "
                                           "'reclaimtest' failed: WRONGPASS";
        QTest::newRow("insecure, right password")
            << kPassword << true << 0
            << "reclaim: warning: TLS verification is OFF for 127.0.0.1:%1 (TLS)";
    }

    void onceOutputNamesTheFailureButNeverThePassword()
    {
        QFETCH(QString, password);
        QFETCH(bool, insecure);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrHas);
        SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        env.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(m_plainPort);
        resetSandbox(env);
        migrate(env);

        QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(sample.readAll()).object();
        QJsonObject tlsKeys{{QStringLiteral("insecure"), insecure}};
        if (!insecure)
            tlsKeys[QStringLiteral("ca")] = m_certs.ca();
        config[QStringLiteral("connections")] =
            QJsonObject{{QStringLiteral("postgresUrl"), env.pgUrl},
                        {QStringLiteral("redisUrl"),
                         QStringLiteral("rediss://reclaimtest:%1@127.0.0.1:%2/0")
                             .arg(QString::fromUtf8(QUrl::toPercentEncoding(password)))
                             .arg(m_tlsPort)},
                        {QStringLiteral("redisTls"), tlsKeys}};
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("reclaim.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(config).toJson());
        file.close();

        QProcess p;
        QProcessEnvironment pe = QProcessEnvironment::systemEnvironment();
        pe.remove(QStringLiteral("RECLAIM_PG_URL"));
        pe.remove(QStringLiteral("RECLAIM_REDIS_URL"));
        p.setProcessEnvironment(pe);
        p.start(QStringLiteral(RECLAIM_BINARY), {QStringLiteral("--once"), QStringLiteral("--json"),
                                                 QStringLiteral("--config"), file.fileName()});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == exitCode, qPrintable(err));
        QVERIFY2(err.contains(stderrHas.arg(m_tlsPort)), qPrintable(err));
        QVERIFY(!out.contains(kPassword));
        QVERIFY(!err.contains(kPassword));
    }

    void cleanupTestCase()
    {
        m_main.stop();
        m_mutual.stop();
        m_wrongHost.stop();
        m_expired.stop();
    }
};

QTEST_GUILESS_MAIN(TestRedisTls)
#include "test_redistls.moc"
