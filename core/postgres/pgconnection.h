// One named QtSql (QPSQL) connection with Reclaim's session settings, removed when destroyed.
// Thread-confined: create, use and destroy it on one thread (the connection belongs to it).
#pragma once

#include "config/reclaimconfig.h"
#include "ports/jobstore.h"
#include "util/expected.h"

#include <QSqlDatabase>
#include <QString>
#include <memory>

class QSqlQuery;

namespace reclaim {

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

    // "PostgreSQL <what> (<endpoint>): <the query's error>".
    StoreError failure(const QString &what, const QSqlQuery &query) const;
    // The same for an error of the connection itself (begin, commit).
    StoreError failure(const QString &what) const;

private:
    PgConnection(QString name, QString endpoint);

    QString m_name;
    QString m_endpoint;
};

} // namespace reclaim
