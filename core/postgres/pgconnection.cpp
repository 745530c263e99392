#include "postgres/pgconnection.h"

#include <QAtomicInteger>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace reclaim {

namespace {

QString nextConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("reclaim-pg-%1").arg(counter.fetchAndAddRelaxed(1));
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

StoreError PgConnection::failure(const QString &what, const QSqlQuery &query) const
{
    return StoreError{
        QStringLiteral("PostgreSQL %1 (%2): %3").arg(what, m_endpoint, oneLine(query.lastError()))};
}

StoreError PgConnection::failure(const QString &what) const
{
    return StoreError{QStringLiteral("PostgreSQL %1 (%2): %3")
                          .arg(what, m_endpoint, oneLine(database().lastError()))};
}

Expected<std::unique_ptr<PgConnection>, StoreError> PgConnection::open(const ReclaimConfig &config)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
        return unexpected(
            StoreError{QStringLiteral("the Qt PostgreSQL driver (QPSQL) is not installed; "
                                      "install libqt6sql6-psql")});
    const PostgresEndpoint &pg = config.postgres;
    std::unique_ptr<PgConnection> conn(new PgConnection(nextConnectionName(), pg.redacted()));
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), conn->m_name);
    db.setHostName(pg.host);
    db.setPort(pg.port);
    db.setUserName(pg.user);
    db.setPassword(pg.password);
    db.setDatabaseName(pg.database);
    const qint64 timeoutS = qMax<qint64>(1, (config.run.postgresTimeout.count() + 999) / 1000);
    QString options = QStringLiteral("connect_timeout=%1;application_name=reclaim").arg(timeoutS);
    if (!pg.options.isEmpty())
        options += QLatin1Char(';') + pg.options;
    db.setConnectOptions(options);
    if (!db.open()) // the driver's text never contains the password; the endpoint is redacted
        return unexpected(StoreError{QStringLiteral("cannot connect to PostgreSQL at %1: %2")
                                         .arg(conn->m_endpoint, oneLine(db.lastError()))});

    QSqlQuery q(db);
    const qint64 ms = config.run.postgresTimeout.count();
    const QStringList session{
        QStringLiteral("SET TimeZone = '%1'")
            .arg(QString(config.run.timeZone).replace(QLatin1Char('\''), QString())),
        QStringLiteral("SET DateStyle = 'ISO, YMD'"),
        // libpq prints every NOTICE (an idempotent migration's "already exists, skipping") on
        // stderr; warnings and errors still come through, and errors reach us as query errors.
        QStringLiteral("SET client_min_messages = warning"),
        QStringLiteral("SET statement_timeout = %1").arg(ms),
        QStringLiteral("SET lock_timeout = %1").arg(ms),
        QStringLiteral("SET idle_in_transaction_session_timeout = %1")
            .arg(qMax<qint64>(ms * 4, 10000)),
    };
    for (const QString &sql : session)
        if (!q.exec(sql))
            return unexpected(conn->failure(QStringLiteral("session setup"), q));
    return conn;
}

} // namespace reclaim
