#include "postgres/pgjobstore.h"

#include "fencing/pgfence.h"
#include "postgres/auditlog.h"
#include "postgres/candidatequery.h"
#include "postgres/conditionalwrite.h"
#include "postgres/reclaimschema.h"
#include "postgres/rejectionlog.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

PgJobStore::PgJobStore(std::unique_ptr<PgConnection> conn, bool readOnly)
    : m_conn(std::move(conn)), m_readOnly(readOnly)
{}

PgJobStore::~PgJobStore() = default;

QString PgJobStore::connectionName() const
{
    return m_conn->name();
}

Expected<std::unique_ptr<PgJobStore>, StoreError> PgJobStore::open(const ReclaimConfig &config,
                                                                   bool readOnly)
{
    auto conn = PgConnection::open(config);
    if (!conn)
        return unexpected(conn.error());
    std::unique_ptr<PgJobStore> store(new PgJobStore(std::move(*conn), readOnly));
    if (!readOnly) {
        auto migrated = store->migrate();
        if (!migrated)
            return unexpected(migrated.error());
    }
    return store;
}

Expected<bool, StoreError> PgJobStore::migrate()
{
    QSqlDatabase db = m_conn->database();
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(m_conn->failure(QStringLiteral("beginning Reclaim's schema migration")));
    for (const QString &sql : reclaimSchemaStatements()) {
        if (!q.exec(sql)) {
            StoreError e = m_conn->failure(QStringLiteral("creating Reclaim's schema"), q);
            db.rollback();
            return unexpected(e);
        }
    }
    if (!db.commit())
        return unexpected(m_conn->failure(QStringLiteral("committing Reclaim's schema")));
    return true;
}

Expected<QList<Candidate>, StoreError> PgJobStore::readCandidates(const DomainConfig &d)
{
    return reclaim::readCandidates(*m_conn, d);
}

Expected<std::optional<QByteArray>, StoreError>
PgJobStore::restorePayload(const DomainConfig &d, const RestoreRule &rule, const QString &rowId)
{
    QSqlQuery q(m_conn->database());
    q.setForwardOnly(true);
    if (!q.prepare(rule.query))
        return unexpected(
            m_conn->failure(QStringLiteral("preparing the restore query of %1").arg(d.name), q));
    q.bindValue(QStringLiteral(":jobId"), rowId);
    if (!q.exec())
        return unexpected(
            m_conn->failure(QStringLiteral("running the restore query of %1").arg(d.name), q));
    if (!q.next() || q.value(0).isNull())
        return std::optional<QByteArray>();
    return std::optional<QByteArray>(q.value(0).toString().toUtf8());
}

Expected<int, StoreError> PgJobStore::recentRequeues(const DomainConfig &d, const QString &rowId)
{
    QSqlQuery q(m_conn->database());
    // A read-only store may face a database where Reclaim's schema was never created.
    if (!q.exec(QStringLiteral("SELECT to_regclass('reclaim.requeue') IS NOT NULL")) || !q.next())
        return unexpected(m_conn->failure(QStringLiteral("checking Reclaim's schema"), q));
    if (!q.value(0).toBool())
        return 0;
    q.prepare(QStringLiteral("SELECT count(*) FROM reclaim.requeue WHERE domain = ? AND row_id = ? "
                             "AND at > now() - make_interval(secs => ?)"));
    q.addBindValue(d.name);
    q.addBindValue(rowId);
    q.addBindValue(static_cast<double>(d.requeueWindow.count()));
    if (!q.exec() || !q.next())
        return unexpected(m_conn->failure(
            QStringLiteral("reading the retry budget of %1/%2").arg(d.name, rowId), q));
    return q.value(0).toInt();
}

Expected<bool, StoreError> PgJobStore::startGeneration(qint64 generation)
{
    QSqlQuery q(m_conn->database());
    const std::optional<bool> started = pgfence::start(q, generation);
    if (!started)
        return unexpected(
            m_conn->failure(QStringLiteral("recording run generation %1").arg(generation), q));
    return *started;
}

Expected<WriteOutcome, StoreError> PgJobStore::applyAction(const DomainConfig &d, const Action &a,
                                                           const Actor &actor)
{
    return writeAction(*m_conn, d, a, actor);
}

void PgJobStore::auditOnly(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return;
    QSqlQuery q(m_conn->database());
    // Best effort: the audit of a non-write must not turn into a failed action.
    (void)appendAudit(q, a, a.result, a.resultDetail, actor);
}

Expected<std::optional<Candidate>, StoreError> PgJobStore::readRow(const DomainConfig &d,
                                                                   const QString &rowId)
{
    return readRowById(*m_conn, d, rowId);
}

Expected<QList<Rejection>, StoreError> PgJobStore::activeRejections(const DomainConfig &d)
{
    return readActiveRejections(*m_conn, d.name);
}

Expected<Rejection, StoreError> PgJobStore::recordRejection(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return unexpected(
            StoreError{QStringLiteral("a read-only console records no rejection (%1)").arg(a.id)});
    return writeRejection(*m_conn, a, actor);
}

Expected<int, StoreError> PgJobStore::undoRejection(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return unexpected(
            StoreError{QStringLiteral("a read-only console undoes no rejection (%1)").arg(a.id)});
    return writeRejectionUndo(*m_conn, a, actor);
}

} // namespace reclaim
