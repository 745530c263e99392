// PostgreSQL reached the ways companies run it, against a server the test starts itself: a Unix
// socket in a directory whose name has a space, and TLS with `sslmode=verify-full`, a CA the
// test made and a client certificate (files in a directory with a space). A good connection
// runs a real recovery (the orphan is failed); a refused one names the server and the TLS
// reason, exits 5 and writes nothing, and no error carries the password.
#include "config/configloader.h"
#include "ownpostgres.h"
#include "postgres/pgconnection.h"
#include "reportprinter.h"
#include "service/engine.h"
#include "support/sandboxenv.h"

#include <QFile>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTest>
#include <QUrl>

using namespace reclaim;
using namespace reclaim::test;

namespace {

QString encoded(const QString &path)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(path));
}

const char kDomains[] = R"("domains": [ { "name": "image", "table": "ImageJob",
    "columns": { "id": "id", "status": "status", "updatedAt": "updatedAt",
                 "progress": "progress", "error": "error" },
    "thresholdSeconds": 3600, "queues": ["image-render"], "jobIdTemplate": "image-{id}" } ])";

} // namespace

class TestPgTransport : public QObject
{
    Q_OBJECT

    SandboxEnv m_env;
    std::unique_ptr<OwnPostgres> m_pg;

    QString socketUrl(int port) const
    {
        // Concatenated, not arg()-ed: the encoded directory is full of "%2F".
        return QStringLiteral("postgresql://reclaim@/postgres?host=") + encoded(m_pg->socketDir()) +
               QStringLiteral("&port=") + QString::number(port);
    }

    // verify-full over TCP with the test's certificates; `host` is what libpq checks the
    // server's certificate against.
    QString tlsUrl(const QString &host, const QString &extra, bool clientCert = true,
                   const QString &ca = {}) const
    {
        const OwnPostgres::Tls &t = m_pg->tls();
        QString url = QStringLiteral("postgresql://reclaim:") + OwnPostgres::password() +
                      QLatin1Char('@') + host + QLatin1Char(':') + QString::number(m_pg->port()) +
                      QStringLiteral("/postgres?sslmode=verify-full&sslrootcert=") +
                      encoded(ca.isEmpty() ? t.caCert : ca);
        if (clientCert)
            url += QStringLiteral("&sslcert=") + encoded(t.clientCert) +
                   QStringLiteral("&sslkey=") + encoded(t.clientKey);
        return url + extra;
    }

    ReclaimConfig configFor(const QString &pgUrl) const
    {
        const QByteArray json = QStringLiteral(R"({ "connections": { "postgresUrl": "%1",
            "redisUrl": "%2" }, "run": { "postgresTimeoutMs": 5000 }, %3 })")
                                    .arg(pgUrl, m_env.redisUrl, QString::fromLatin1(kDomains))
                                    .toUtf8();
        auto config =
            ConfigLoader::loadJson(json, QStringLiteral("pgtransport.json"), QProcessEnvironment());
        if (!config)
            qFatal("test config does not load: %s", qPrintable(config.error().toString()));
        return *config;
    }

    // SQL on the own server over its socket (trust), whatever the TLS settings.
    QList<QVariantList> ownSql(const QString &statement)
    {
        auto conn = PgConnection::open(configFor(socketUrl(m_pg->port())));
        if (!conn) {
            QTest::qFail(qPrintable(conn.error().message), __FILE__, __LINE__);
            return {};
        }
        QSqlQuery q((*conn)->database());
        if (!q.exec(statement)) {
            QTest::qFail(qPrintable((*conn)->failure(QStringLiteral("test SQL"), q).message),
                         __FILE__, __LINE__);
            return {};
        }
        QList<QVariantList> rows;
        while (q.next()) {
            QVariantList row;
            for (int i = 0; i < q.record().count(); ++i)
                row << q.value(i);
            rows << row;
        }
        return rows;
    }

    QString orphanStatus()
    {
        return ownSql(QStringLiteral(R"(SELECT status FROM "ImageJob" WHERE id = 'img-1')"))
            .value(0)
            .value(0)
            .toString();
    }

    bool reclaimSchemaExists()
    {
        return !ownSql(QStringLiteral("SELECT 1 FROM pg_namespace WHERE nspname = 'reclaim'"))
                    .isEmpty();
    }

    // A real run on `url` fails the orphan: it was found ABSENT in Redis and written over `url`.
    void verifyARealRunRecoversTheOrphan(const QString &url)
    {
        openAppQueues(m_env, configFor(url)); // the app has opened its queue; no job is in it
        Engine engine(configFor(url));
        const RunReport report = engine.run(RunRequest{});
        QVERIFY2(report.outcome == RunReport::Outcome::Completed, qPrintable(report.outcomeDetail));
        QCOMPARE(exitCodeFor(report), 0);
        QCOMPARE(report.count(Verdict::Absent), 1);
        QCOMPARE(report.actions.size(), 1);
        QCOMPARE(report.actions.first().result, ActionResult::Applied);
        QCOMPARE(orphanStatus(), QStringLiteral("FAILED"));
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (!QFile::exists(QStringLiteral("/usr/lib/postgresql/15/bin/initdb")))
            RECLAIM_SKIP_WITHOUT_SANDBOX("PostgreSQL 15 server binaries are not installed");
        m_pg = std::make_unique<OwnPostgres>();
        QVERIFY2(m_pg->makeCertificates(), qPrintable(m_pg->error()));
        QVERIFY2(m_pg->start(true), qPrintable(m_pg->error()));
    }

    void cleanupTestCase() { m_pg.reset(); }

    // One orphan (PROCESSING for two hours, no queue entry), no reclaim schema, empty Redis.
    void init()
    {
        resetSandbox(m_env);
        ownSql(QStringLiteral("DROP SCHEMA IF EXISTS reclaim CASCADE"));
        ownSql(QStringLiteral(R"(DROP TABLE IF EXISTS "ImageJob")"));
        ownSql(QStringLiteral(R"(CREATE TABLE "ImageJob" (id text PRIMARY KEY, status text NOT NULL,
            progress integer NOT NULL DEFAULT 0, error text, "updatedAt" timestamp(3) NOT NULL))"));
        ownSql(QStringLiteral(R"(INSERT INTO "ImageJob" (id, status, "updatedAt")
            VALUES ('img-1', 'PROCESSING', now() AT TIME ZONE 'UTC' - interval '2 hours'))"));
    }

    void aUnixSocketInADirectoryWithASpaceRunsARealRun()
    {
        QVERIFY(m_pg->socketDir().contains(QLatin1Char(' ')));
        verifyARealRunRecoversTheOrphan(socketUrl(m_pg->port()));
    }

    // No server on that socket: the error names the socket file, and nothing is written.
    void aMissingSocketIsNamed()
    {
        const int port = m_pg->port() == 65535 ? 65534 : m_pg->port() + 1;
        Engine engine(configFor(socketUrl(port)));
        const RunReport report = engine.run(RunRequest{});
        qInfo("%s", qPrintable(report.outcomeDetail)); // what an operator reads
        QCOMPARE(report.outcome, RunReport::Outcome::Failed);
        QCOMPARE(exitCodeFor(report), 5);
        const QString socket = m_pg->socketDir() + QStringLiteral("/.s.PGSQL.%1").arg(port);
        QVERIFY2(report.outcomeDetail.contains(QStringLiteral("Unix socket ") + socket),
                 qPrintable(report.outcomeDetail));
        QCOMPARE(orphanStatus(), QStringLiteral("PROCESSING"));
    }

    void verifyFullWithTheRightCaAndHostRunsARealRun()
    {
        const QString url = tlsUrl(QStringLiteral("localhost"), {});
        QVERIFY(m_pg->tls().caCert.contains(QLatin1Char(' ')));
        // The session really is TLS, verified: libpq would not have connected otherwise, and
        // the server says so for this backend.
        auto conn = PgConnection::open(configFor(url));
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QSqlQuery q((*conn)->database());
        QVERIFY(q.exec(
            QStringLiteral("SELECT ssl, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()")));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toBool(), true);
        QCOMPARE(q.value(1).toString(), QStringLiteral("/CN=reclaim"));
        conn->reset();
        verifyARealRunRecoversTheOrphan(url);
    }

    void refusedTlsIsAClearErrorAndWritesNothing_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QStringList>("mustSay");
        // The certificate names localhost and 127.0.0.1; libpq checks the host it was given and
        // connects to hostaddr.
        QTest::newRow("host name not in the certificate")
            << tlsUrl(QStringLiteral("wrong.reclaim.test"), QStringLiteral("&hostaddr=127.0.0.1"))
            << QStringList{QStringLiteral("wrong.reclaim.test"),
                           QStringLiteral("does not match host name")};
        QTest::newRow("a CA that did not sign the server")
            << tlsUrl(QStringLiteral("localhost"), {}, true, m_pg->tls().otherCaCert)
            << QStringList{QStringLiteral("localhost"),
                           QStringLiteral("certificate verify failed")};
        QTest::newRow("no client certificate")
            << tlsUrl(QStringLiteral("localhost"), {}, false)
            << QStringList{QStringLiteral("localhost"), QStringLiteral("certificate")};
    }

    void refusedTlsIsAClearErrorAndWritesNothing()
    {
        QFETCH(QString, url);
        QFETCH(QStringList, mustSay);
        Engine engine(configFor(url));
        const RunReport report = engine.run(RunRequest{});
        qInfo("%s", qPrintable(report.outcomeDetail)); // what an operator reads
        QCOMPARE(report.outcome, RunReport::Outcome::Failed);
        QCOMPARE(exitCodeFor(report), 5);
        QVERIFY2(
            report.outcomeDetail.startsWith(QStringLiteral("cannot connect to PostgreSQL at ")),
            qPrintable(report.outcomeDetail));
        for (const QString &words : mustSay)
            QVERIFY2(report.outcomeDetail.contains(words), qPrintable(report.outcomeDetail));
        QVERIFY2(!report.outcomeDetail.contains(OwnPostgres::password()),
                 qPrintable(report.outcomeDetail));
        QCOMPARE(report.lock.state, LockReport::State::NotAttempted);
        QCOMPARE(orphanStatus(), QStringLiteral("PROCESSING"));
        QVERIFY(!reclaimSchemaExists());
        auto r = redis(m_env);
        QCOMPARE(r.command({QByteArrayLiteral("DBSIZE")})->integer, 0LL);
    }
};

QTEST_GUILESS_MAIN(TestPgTransport)
#include "test_pgtransport.moc"
