// Issue 13 item 6 (in part) against the real PostgreSQL: Reclaim's session carries libpq
// keepalives and tcp_user_timeout from the configured timeout, its TimeZone is set from a bound
// value, and a URL option whose value has a space reaches the server as one value.
#include "config/connectionurl.h"
#include "hookedrun.h"
#include "pgserver.h"
#include "postgres/pgconnection.h"
#include "support/sandboxenv.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QSqlDriver>
#include <QSqlQuery>
#include <QTest>
#include <QThread>
#include <atomic>
#include <csignal>
#include <libpq-fe.h>

using namespace reclaim;
using namespace reclaim::test;

namespace {

QString setting(PgConnection &conn, const QString &name)
{
    QSqlQuery q(conn.database());
    q.prepare(QStringLiteral("SELECT current_setting(?)"));
    q.addBindValue(name);
    if (!q.exec() || !q.next())
        return QStringLiteral("<error>");
    return q.value(0).toString();
}

// The value libpq uses for `keyword` on this connection (PQconninfo).
QString conninfoValue(PgConnection &conn, const char *keyword)
{
    const QVariant v = conn.database().driver()->handle();
    PGconn *pg = *static_cast<PGconn *const *>(v.constData());
    QString out;
    PQconninfoOption *opts = PQconninfo(pg);
    for (PQconninfoOption *o = opts; o && o->keyword; ++o)
        if (qstrcmp(o->keyword, keyword) == 0 && o->val)
            out = QString::fromUtf8(o->val);
    PQconninfoFree(opts);
    return out;
}

} // namespace

class TestPgSession : public QObject
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

    void keepalivesAndTcpUserTimeoutComeFromTheConfiguredTimeout()
    {
        ReclaimConfig config = sampleConfig(m_env);
        config.run.postgresTimeout = std::chrono::milliseconds(2500);
        auto conn = PgConnection::open(config);
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(conninfoValue(**conn, "keepalives"), QStringLiteral("1"));
        QCOMPARE(conninfoValue(**conn, "keepalives_idle"), QStringLiteral("3"));
        QCOMPARE(conninfoValue(**conn, "keepalives_interval"), QStringLiteral("3"));
        QCOMPARE(conninfoValue(**conn, "tcp_user_timeout"), QStringLiteral("2500"));
        QCOMPARE(setting(**conn, QStringLiteral("idle_in_transaction_session_timeout")),
                 QStringLiteral("2500ms"));
    }

    void theTimeZoneIsSetFromABoundValue()
    {
        ReclaimConfig config = sampleConfig(m_env);
        config.run.timeZone = QStringLiteral("America/St_Johns");
        auto conn = PgConnection::open(config);
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(setting(**conn, QStringLiteral("TimeZone")), QStringLiteral("America/St_Johns"));

        // A value that is not a zone is refused by the server, by name, not cut into SQL.
        config.run.timeZone = QStringLiteral("UTC'; SET statement_timeout = 0; --");
        auto bad = PgConnection::open(config);
        QVERIFY(!bad.hasValue());
        QVERIFY2(bad.error().message.contains(QStringLiteral("TimeZone")),
                 qPrintable(bad.error().message));
    }

    // The whole server frozen with SIGSTOP while Reclaim's candidate query is on its way: the
    // kernel still ACKs, so only the client-side watchdog ends the call. The run ends within its
    // timeouts, reports every domain's read as failed with the reason, and writes nothing.
    void aRunEndsWithinItsTimeoutsWhenTheServerIsFrozenMidQuery()
    {
        resetSandbox(m_env);
        ReclaimConfig config = sampleConfig(m_env);
        config.run.postgresTimeout = std::chrono::milliseconds(1000);
        config.run.redisTimeout = std::chrono::milliseconds(1000);
        config.run.lockTtl = std::chrono::seconds(30);
        std::atomic_bool frozen{false};
        RunReport report;
        std::atomic_bool done{false};
        std::unique_ptr<QThread> run(QThread::create([&] {
            report = runHooked(
                config,
                [&](const QString &at) {
                    if (at == QLatin1String("candidates") && !frozen) {
                        frozen = signalServer(m_env, SIGSTOP);
                    }
                },
                QStringLiteral("frozen-pg"));
            done = true;
        }));
        // Whatever happens below, the server resumes and the run's thread is joined.
        auto resume = qScopeGuard([&] {
            if (frozen)
                signalServer(m_env, SIGCONT);
            run->wait();
        });
        QElapsedTimer took;
        took.start();
        run->start();
        // Per call at most fenceWaitMs + the timeout (4 s here), then a reconnect bounded by
        // connect_timeout, for each of the five domains: far below a hang.
        QTRY_VERIFY_WITH_TIMEOUT(done.load(), 60000);
        run->wait();
        const qint64 ms = took.elapsed();
        QVERIFY(frozen);
        signalServer(m_env, SIGCONT);
        frozen = false;
        QVERIFY2(ms < 40000, qPrintable(QString::number(ms)));
        QVERIFY(!report.domains.isEmpty());
        const QString first = report.domains.first().candidateError.value_or(QString());
        QVERIFY2(first.contains(QStringLiteral("no answer within")), qPrintable(first));
        QVERIFY(report.actions.isEmpty());
    }

    void aUrlOptionValueWithASpaceIsOneValue()
    {
        ReclaimConfig config = sampleConfig(m_env);
        const QString url =
            m_env.pgUrl +
            (m_env.pgUrl.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) +
            QStringLiteral("application_name=night%20shift");
        auto endpoint = parsePostgresUrl(url);
        QVERIFY2(endpoint.hasValue(), endpoint ? "" : qPrintable(endpoint.error()));
        config.postgres = *endpoint;
        auto conn = PgConnection::open(config);
        QVERIFY2(conn.hasValue(), conn ? "" : qPrintable(conn.error().message));
        QCOMPARE(setting(**conn, QStringLiteral("application_name")),
                 QStringLiteral("night shift"));
    }
};

QTEST_GUILESS_MAIN(TestPgSession)
#include "test_pgsession.moc"
