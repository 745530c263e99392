#include "postgres/pgconnection.h"

#include <QAtomicInteger>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <algorithm>
#include <libpq-fe.h>

namespace reclaim {

namespace {

QString nextConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("reclaim-pg-%1").arg(counter.fetchAndAddRelaxed(1));
}

// The libpq connection behind a QPSQL connection (null when it is not open).
PGconn *pgHandle(const QSqlDatabase &db)
{
    if (!db.isValid() || !db.driver())
        return nullptr;
    const QVariant v = db.driver()->handle();
    // Qt names the type after libpq's struct ("pg_conn*"); older documentation says "PGconn*".
    if (!v.isValid() ||
        (qstrcmp(v.typeName(), "pg_conn*") != 0 && qstrcmp(v.typeName(), "PGconn*") != 0))
        return nullptr;
    return *static_cast<PGconn *const *>(v.constData());
}

// One line per error (issue 18): the server's or libpq's own text, its lines (a libpq hint
// comes on a line of its own) joined. QSqlError::text() would append the driver's generic
// "QPSQL: Unable to connect" / "Unable to create query" on yet another line; it only stands in
// when there is nothing better.
QString oneLine(const QSqlError &error)
{
    QStringList lines;
    for (const QString &line : error.databaseText().split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty())
            lines << line.trimmed();
    if (lines.isEmpty())
        return error.driverText().simplified();
    return lines.join(QStringLiteral("; "));
}

} // namespace

qint64 idleInTransactionTimeoutMs(const RunSettings &run)
{
    // Reclaim's transactions send their statements back to back; the floor only keeps a
    // scheduling stall on a loaded machine from ending a healthy one.
    return qMax<qint64>(run.postgresTimeout.count(), 1000);
}

qint64 fenceWaitMs(const RunSettings &run)
{
    return run.postgresTimeout.count() + idleInTransactionTimeoutMs(run) + 1000;
}

PgConnection::PgConnection(QString name, QString endpoint)
    : m_name(std::move(name)), m_endpoint(std::move(endpoint))
{}

PgConnection::~PgConnection()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

QSqlDatabase PgConnection::database() const
{
    return QSqlDatabase::database(m_name, false);
}

bool PgConnection::alive() const
{
    PGconn *pg = pgHandle(database());
    return pg && PQstatus(pg) == CONNECTION_OK;
}

int PgConnection::socket() const
{
    PGconn *pg = pgHandle(database());
    return pg ? PQsocket(pg) : -1;
}

QString PgConnection::errorText(const QString &driverText) const
{
    const QString driver = driverText.trimmed();
    if (!driver.isEmpty() && alive())
        return driver;
    // On a lost connection the driver's text is empty or stale; libpq kept the real reason.
    PGconn *pg = pgHandle(database());
    const QString libpq = pg ? QString::fromUtf8(PQerrorMessage(pg)).simplified() : QString();
    if (!libpq.isEmpty())
        return driver.isEmpty() || driver.contains(libpq) ? libpq
                                                          : driver + QStringLiteral("; ") + libpq;
    if (!driver.isEmpty())
        return driver;
    return pg ? QStringLiteral("the connection to the server was lost")
              : QStringLiteral("the connection is not open");
}

Expected<bool, StoreError> PgConnection::hasReclaimTable(const QString &table)
{
    if (m_tablesSeen.contains(table))
        return true;
    // One of Reclaim's own table names, written into the statement: a bound value would make
    // QtSql prepare, execute and deallocate, three round trips for one answer.
    Q_ASSERT(!table.isEmpty() && std::all_of(table.cbegin(), table.cend(), [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || c == QLatin1Char('_');
    }));
    QSqlQuery q(database());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT to_regclass('reclaim.%1') IS NOT NULL").arg(table)) ||
        !q.next())
        return unexpected(failure(QStringLiteral("checking Reclaim's schema"), q));
    if (!q.value(0).toBool())
        return false;
    m_tablesSeen.insert(table);
    return true;
}

StoreError PgConnection::failure(const QString &what, const QSqlQuery &query) const
{
    return StoreError{QStringLiteral("PostgreSQL %1 (%2): %3")
                          .arg(what, m_endpoint, errorText(oneLine(query.lastError())))};
}

StoreError PgConnection::failure(const QString &what) const
{
    return StoreError{QStringLiteral("PostgreSQL %1 (%2): %3")
                          .arg(what, m_endpoint, errorText(oneLine(database().lastError())))};
}

Expected<std::unique_ptr<PgConnection>, StoreError> PgConnection::open(const ReclaimConfig &config)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
        return unexpected(
            StoreError{QStringLiteral("the Qt PostgreSQL driver (QPSQL) is not installed; "
                                      "install libqt6sql6-psql")});
    const PostgresEndpoint &pg = config.postgres;
    std::unique_ptr<PgConnection> conn(new PgConnection(nextConnectionName(), pg.redacted()));
    conn->m_lockKey = config.run.lockKey;
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), conn->m_name);
    db.setHostName(pg.host);
    db.setPort(pg.port);
    db.setUserName(pg.user);
    db.setPassword(pg.password);
    db.setDatabaseName(pg.database);
    const qint64 timeoutS = qMax<qint64>(1, (config.run.postgresTimeout.count() + 999) / 1000);
    // TCP keepalives and tcp_user_timeout from the configured timeout: a server host that went
    // away (no ACKs) ends the connection instead of leaving a read blocked for TCP's minutes.
    const qint64 ms = config.run.postgresTimeout.count();
    QString options = QStringLiteral("connect_timeout=%1;application_name=reclaim;keepalives=1;"
                                     "keepalives_idle=%1;keepalives_interval=%1;"
                                     "keepalives_count=3;tcp_user_timeout=%2")
                          .arg(timeoutS)
                          .arg(ms);
    if (!pg.options.isEmpty())
        options += QLatin1Char(';') + pg.options;
    db.setConnectOptions(options);
    if (!db.open()) // the driver's text never contains the password; the endpoint is redacted
        return unexpected(StoreError{QStringLiteral("cannot connect to PostgreSQL at %1: %2")
                                         .arg(conn->m_endpoint, oneLine(db.lastError()))});

    QSqlQuery q(db);
    // The time zone is a bound value, never spliced into the statement's text.
    q.prepare(QStringLiteral("SELECT set_config('TimeZone', ?, false)"));
    q.addBindValue(config.run.timeZone);
    if (!q.exec())
        return unexpected(conn->failure(QStringLiteral("session setup (TimeZone)"), q));
    const QStringList session{
        QStringLiteral("SET DateStyle = 'ISO, YMD'"),
        // libpq prints every NOTICE (an idempotent migration's "already exists, skipping") on
        // stderr; warnings and errors still come through, and errors reach us as query errors.
        QStringLiteral("SET client_min_messages = warning"),
        QStringLiteral("SET statement_timeout = %1").arg(ms),
        QStringLiteral("SET lock_timeout = %1").arg(ms),
        QStringLiteral("SET idle_in_transaction_session_timeout = %1")
            .arg(idleInTransactionTimeoutMs(config.run)),
    };
    for (const QString &sql : session)
        if (!q.exec(sql))
            return unexpected(conn->failure(QStringLiteral("session setup"), q));
    return conn;
}

} // namespace reclaim
