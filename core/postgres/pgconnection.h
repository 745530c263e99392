// One named QtSql (QPSQL) connection with Reclaim's session settings, removed when destroyed.
// Thread-confined: create, use and destroy it on one thread (the connection belongs to it).
#pragma once

#include "config/reclaimconfig.h"
#include "ports/jobstore.h"
#include "util/expected.h"

#include <QSet>
#include <QSqlDatabase>
#include <QString>
#include <memory>

class QSqlQuery;

namespace reclaim {

// How long the server lets a session of Reclaim sit idle inside a transaction before it ends it:
// the bound on how long a frozen writer can hold the fence (FOR SHARE) against the next run.
qint64 idleInTransactionTimeoutMs(const RunSettings &run);
// How long a starting run waits for the fence: past a frozen writer's last statement
// (statement_timeout) and its idle time in the transaction, so it does not fail meanwhile.
qint64 fenceWaitMs(const RunSettings &run);

class PgConnection final
{
public:
    // Connects within the configured timeout and sets the session up (time zone, date style,
    // statement, lock and idle-in-transaction timeouts).
    static Expected<std::unique_ptr<PgConnection>, StoreError> open(const ReclaimConfig &config);
    ~PgConnection();
    Q_DISABLE_COPY_MOVE(PgConnection)

    QSqlDatabase database() const;
    const QString &name() const { return m_name; }
    const QString &endpoint() const { return m_endpoint; } // redacted URL, for messages
    const QString &lockKey() const { return m_lockKey; }   // whose fence row this run uses

    // "PostgreSQL <what> (<endpoint>): <the query's error>".
    StoreError failure(const QString &what, const QSqlQuery &query) const;
    // The same for an error of the connection itself (begin, commit).
    StoreError failure(const QString &what) const;

    // Whether Reclaim's table `reclaim.<table>` exists: a read-only store or the console may
    // face a database where Reclaim's schema was never created. A table seen once is remembered
    // for the connection's life (a batch of work asked this before every statement, a round
    // trip each); one not there yet is asked again, as a writing run may create it meanwhile.
    Expected<bool, StoreError> hasReclaimTable(const QString &table);

    // False once libpq has seen the server go away (a restart, a terminated session): nothing
    // more can be sent on this connection, and QtSql then fails statements with no error text.
    bool alive() const;
    // The connection's socket (PQsocket), -1 when there is none: for PgWatchdog.
    int socket() const;

private:
    PgConnection(QString name, QString endpoint);
    // The driver's error text, or libpq's own message when the driver has none (QPSQL refuses
    // statements on a lost connection without setting an error).
    QString errorText(const QString &driverText) const;

    QString m_name;
    QString m_endpoint;
    QString m_lockKey;
    QSet<QString> m_tablesSeen;
};

} // namespace reclaim
