// Issue 13 item 6 (in part) against the real PostgreSQL: Reclaim's session carries libpq
// keepalives and tcp_user_timeout from the configured timeout, its TimeZone is set from a bound
// value, and a URL option whose value has a space reaches the server as one value.
#include "config/connectionurl.h"
#include "postgres/pgconnection.h"
#include "support/sandboxenv.h"

#include <QSqlDriver>
#include <QSqlQuery>
#include <QTest>
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
            QSKIP("no sandbox (run through ctest, which starts one)");
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
