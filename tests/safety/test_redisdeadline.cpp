// #31 item 1: run.redisTimeoutMs is a deadline for a whole command and for a whole connect, never
// a bound on each wait for a byte. Against a real redis-server behind a relay that answers
// slowly on purpose (slowrelay.h), and a DNS server that never answers: each call ends at its
// deadline with a timeout naming the server; a run that cannot look is skipped (exit 4) or
// UNKNOWN, never ABSENT.
#include "../core/redisserverprocess.h"
#include "hookedrun.h"
#include "redis/redisconnection.h"
#include "slowrelay.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "support/testcerts.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;
using namespace std::chrono_literals;

namespace {

const QString kPassword = QStringLiteral("pw-deadline-31");

RedisEndpoint endpointAt(int port)
{
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = port;
    return e;
}

// The sample configuration with these URLs, written where `reclaim --config` reads it.
QString writeConfig(const QTemporaryDir &dir, const QString &pgUrl, const QString &redisUrl,
                    int redisTimeoutMs)
{
    QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    if (!sample.open(QIODevice::ReadOnly))
        return {};
    QJsonObject config = QJsonDocument::fromJson(sample.readAll()).object();
    config[QStringLiteral("connections")] =
        QJsonObject{{QStringLiteral("postgresUrl"), pgUrl}, {QStringLiteral("redisUrl"), redisUrl}};
    QJsonObject run = config.value(QStringLiteral("run")).toObject();
    run[QStringLiteral("redisTimeoutMs")] = redisTimeoutMs;
    config[QStringLiteral("run")] = run;
    QFile file(dir.filePath(QStringLiteral("reclaim.json")));
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QJsonDocument(config).toJson());
    return file.fileName();
}

QProcessEnvironment withoutUrlOverrides()
{
    QProcessEnvironment pe = QProcessEnvironment::systemEnvironment();
    pe.remove(QStringLiteral("RECLAIM_PG_URL"));
    pe.remove(QStringLiteral("RECLAIM_REDIS_URL"));
    return pe;
}

} // namespace

class TestRedisDeadline : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_certDir;
    TestCerts m_certs;
    RedisServerProcess m_redis; // plain and TLS, with a password user
    int m_port = 0;
    int m_tlsPort = 0;

private slots:
    void initTestCase()
    {
        QVERIFY2(m_certs.make(m_certDir.path()), qPrintable(m_certs.error()));
        m_port = RedisServerProcess::freePort();
        m_tlsPort = RedisServerProcess::freePort();
        QVERIFY2(m_redis.start({QStringLiteral("--port"), QString::number(m_port),
                                QStringLiteral("--tls-port"), QString::number(m_tlsPort),
                                QStringLiteral("--tls-cert-file"), m_certs.serverCert(),
                                QStringLiteral("--tls-key-file"), m_certs.serverKey(),
                                QStringLiteral("--tls-ca-cert-file"), m_certs.ca(),
                                QStringLiteral("--tls-auth-clients"), QStringLiteral("no")}),
                 qPrintable(m_redis.error()));
        auto admin = RedisConnection::open(endpointAt(m_port), 3000ms);
        QVERIFY2(admin, admin ? "" : qPrintable(admin.error().message));
        auto r = admin->command(
            {"ACL", "SETUSER", "slow", "on", ">" + kPassword.toUtf8(), "~*", "+@all"});
        QVERIFY2(r, r ? "" : qPrintable(r.error().message));
    }

    // One byte of the reply every 150 ms: each wait is well inside 600 ms, the reply is not.
    // Read per wait, this command would end after 7 s with the reply; it must end at 600 ms.
    void aReplyThatDripsEndsAtTheCommandsDeadline()
    {
        SlowRelay relay(QStringLiteral("127.0.0.1"), m_port);
        QVERIFY(relay.port());
        auto c = RedisConnection::open(endpointAt(relay.port()), 600ms);
        QVERIFY2(c, c ? "" : qPrintable(c.error().message));
        QVERIFY(c->command({"PING"}));
        relay.set(SlowRelay::Mode::Drip, 150);
        QElapsedTimer t;
        t.start();
        auto r = c->command({"ECHO", QByteArray(40, 'x')});
        const qint64 ms = t.elapsed();
        QVERIFY2(!r, qPrintable(QStringLiteral("the dripped reply was waited for to its end "
                                               "(%1 ms)")
                                    .arg(ms)));
        QCOMPARE(r.error().kind, RedisError::Kind::Timeout);
        QVERIFY2(r.error().message.contains(QStringLiteral("127.0.0.1:%1").arg(relay.port())) &&
                     r.error().message.contains(QLatin1String("600 ms")),
                 qPrintable(r.error().message));
        QVERIFY2(ms >= 550 && ms < 1500, qPrintable(QString::number(ms)));
        QVERIFY(c->isBroken());
    }

    void aConnectWhoseAnswersEachComeInTimeStillEndsAtItsDeadline_data()
    {
        QTest::addColumn<bool>("tls");
        QTest::newRow("tcp: AUTH, SELECT") << false;
        QTest::newRow("tls: handshake, AUTH, SELECT") << true;
    }

    // Every answer 350 ms late: each inside the 600 ms timeout, all of them together not. The
    // connect (resolve, connect, handshake, AUTH, SELECT) shares one deadline.
    void aConnectWhoseAnswersEachComeInTimeStillEndsAtItsDeadline()
    {
        QFETCH(bool, tls);
        SlowRelay relay(QStringLiteral("127.0.0.1"), tls ? m_tlsPort : m_port);
        QVERIFY(relay.port());
        relay.set(SlowRelay::Mode::Delay, 350);
        RedisEndpoint e = endpointAt(relay.port());
        e.host = QStringLiteral("localhost"); // resolved, within the same deadline
        e.user = QStringLiteral("slow");
        e.password = kPassword;
        e.database = 3;
        e.tls.enabled = tls;
        e.tls.caFile = m_certs.ca();

        // Given the time, the same connect succeeds: the delay alone is no failure.
        auto patient = RedisConnection::open(e, 5000ms);
        QVERIFY2(patient, patient ? "" : qPrintable(patient.error().message));

        QElapsedTimer t;
        t.start();
        auto c = RedisConnection::open(e, 600ms);
        const qint64 ms = t.elapsed();
        QVERIFY2(!c, qPrintable(QStringLiteral("connected in %1 ms: each step got a fresh "
                                               "timeout")
                                    .arg(ms)));
        QVERIFY2(c.error().kind == RedisError::Kind::Timeout, qPrintable(c.error().describe()));
        QVERIFY2(c.error().message.contains(QStringLiteral("localhost:%1").arg(relay.port())),
                 qPrintable(c.error().message));
        QVERIFY(!c.error().message.contains(kPassword));
        QVERIFY2(ms < 1100, qPrintable(QString::number(ms)));
    }

    // `reclaim --once` against a Redis that answers one byte every 100 ms: the first command's
    // deadline ends the run as "Redis unreachable", exit 4, with the timeout and the server
    // named; read per wait, it would still be taking the lock a minute later.
    void aRunWhoseRedisDripsIsSkippedWithExit4()
    {
        const SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(env);
        migrate(env);
        SlowRelay relay(QStringLiteral("127.0.0.1"), env.redisPort);
        QVERIFY(relay.port());
        relay.set(SlowRelay::Mode::Drip, 100);
        QTemporaryDir dir;
        const QString config = writeConfig(
            dir, env.pgUrl, QStringLiteral("redis://127.0.0.1:%1/0").arg(relay.port()), 500);
        QVERIFY(!config.isEmpty());

        QProcess p;
        p.setProcessEnvironment(withoutUrlOverrides());
        QElapsedTimer t;
        t.start();
        p.start(QStringLiteral(RECLAIM_BINARY),
                {QStringLiteral("--once"), QStringLiteral("--config"), config});
        QVERIFY(p.waitForFinished(60000));
        const qint64 ms = t.elapsed();
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 4, qPrintable(err));
        QVERIFY2(err.contains(
                     QStringLiteral("127.0.0.1:%1 did not answer within 500 ms").arg(relay.port())),
                 qPrintable(err));
        QVERIFY2(ms < 10000, qPrintable(QString::number(ms)));
    }

    // The lock is taken in time, then every lookup's reply drips: each candidate is UNKNOWN with
    // the timeout as its reason, none ABSENT, nothing written, and the run ends in bounded time.
    void aLookupWhoseRepliesDripIsUnknown()
    {
        SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(env);
        migrate(env);
        SeededIncident incident(env, 7, 1, false);
        QVERIFY(incident.ready());
        SlowRelay relay(QStringLiteral("127.0.0.1"), env.redisPort);
        QVERIFY(relay.port());
        env.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(relay.port());
        ReclaimConfig config = sampleConfig(env);
        config.run.redisTimeout = 500ms;
        config.run.lockTtl = std::chrono::seconds(10);

        const BoundaryHook hook = [&](const QString &at) {
            if (at == QLatin1String("lookup"))
                relay.set(SlowRelay::Mode::Drip, 100);
        };
        QElapsedTimer t;
        t.start();
        const RunReport report = runHooked(config, hook, QStringLiteral("deadline"));
        const qint64 ms = t.elapsed();
        QCOMPARE(report.lock.state, LockReport::State::Acquired);
        int unknown = 0;
        for (const DomainReport &d : report.domains)
            for (const CandidateVerdict &v : d.candidates) {
                QVERIFY2(v.verdict != Verdict::Absent,
                         qPrintable(QStringLiteral("%1 read as ABSENT").arg(v.candidate.id)));
                if (v.verdict == Verdict::Unknown) {
                    ++unknown;
                    QVERIFY2(v.unknownReason.contains(QLatin1String("did not answer")),
                             qPrintable(v.unknownReason));
                }
            }
        QVERIFY2(unknown > 0, "no lookup met the dripping relay");
        for (const Action &a : report.actions)
            QVERIFY2(a.result != ActionResult::Applied, qPrintable(a.rowId));
        QVERIFY2(ms < 60000, qPrintable(QString::number(ms)));
    }

    // A host name the resolver never answers for: getaddrinfo() would wait out the resolver's
    // 30 s; the run is skipped (exit 4) at its 1 s deadline, naming the server. The DNS server is
    // a UDP socket on port 53 that never replies, in a user, mount and network namespace of the
    // run's own, with /etc/resolv.conf bound over to point at it; PostgreSQL is reached over its
    // Unix socket, which the namespace still sees.
    void aNameTheResolverNeverAnswersIsSkippedAtTheDeadline()
    {
        const SandboxEnv env = SandboxEnv::load();
        if (env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        if (QProcess::execute(QStringLiteral("timeout"),
                              {QStringLiteral("10"), QStringLiteral("unshare"),
                               QStringLiteral("-rmn"), QStringLiteral("true")}) != 0)
            QSKIP("this machine allows no unprivileged user namespace (unshare -rmn), so no "
                  "private DNS server can be put in front of the resolver");
        resetSandbox(env);
        migrate(env);
        QTemporaryDir dir;
        const QString pgUrl = QStringLiteral("postgresql://reclaim@/reclaim?host=%1&port=%2")
                                  .arg(env.dir)
                                  .arg(env.pgPort);
        const QString config = writeConfig(
            dir, pgUrl, QStringLiteral("redis://redis.reclaim-deadline.test:6379/0"), 1000);
        QVERIFY(!config.isEmpty());
        QFile resolv(dir.filePath(QStringLiteral("resolv.conf")));
        QVERIFY(resolv.open(QIODevice::WriteOnly));
        resolv.write("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n");
        resolv.close();
        const QString script = QStringLiteral(R"sh(
ip link set lo up || exit 97
"$NODE" -e "const s = require('dgram').createSocket('udp4'); s.on('message', () => {});
  s.bind(53, '127.0.0.1', () => console.log('listening'))" > "$DIR/dns.out" 2>&1 &
dns=$!
for i in $(seq 200); do grep -q listening "$DIR/dns.out" && break; sleep 0.05; done
grep -q listening "$DIR/dns.out" || { cat "$DIR/dns.out" >&2; kill $dns; exit 98; }
mount --bind "$DIR/resolv.conf" /etc/resolv.conf || { kill $dns; exit 99; }
start=$(date +%s%N)
rc=0
timeout 60 "$RECLAIM" --once --config "$DIR/reclaim.json" || rc=$?
echo "elapsed-ms=$(( ($(date +%s%N) - start) / 1000000 ))" >&2
kill $dns
exit $rc
)sh");
        QProcess p;
        QProcessEnvironment pe = withoutUrlOverrides();
        pe.insert(QStringLiteral("DIR"), dir.path());
        pe.insert(QStringLiteral("NODE"), QStringLiteral(RECLAIM_NODE));
        pe.insert(QStringLiteral("RECLAIM"), QStringLiteral(RECLAIM_BINARY));
        p.setProcessEnvironment(pe);
        p.start(QStringLiteral("timeout"),
                {QStringLiteral("90"), QStringLiteral("unshare"), QStringLiteral("-rmn"),
                 QStringLiteral("sh"), QStringLiteral("-c"), script});
        QVERIFY(p.waitForFinished(100000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 4,
                 qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
        QVERIFY2(err.contains(QLatin1String("cannot resolve redis.reclaim-deadline.test:6379")),
                 qPrintable(err));
        const QRegularExpression elapsed(QStringLiteral("elapsed-ms=(\\d+)"));
        const auto m = elapsed.match(err);
        QVERIFY2(m.hasMatch(), qPrintable(err));
        QVERIFY2(m.captured(1).toInt() < 5000, qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestRedisDeadline)
#include "test_redisdeadline.moc"
