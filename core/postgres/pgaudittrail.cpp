#include "postgres/pgaudittrail.h"

#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

QStringList auditTrailSchemaStatements()
{
    return {QStringLiteral(
        "CREATE INDEX IF NOT EXISTS audit_row_id_idx ON reclaim.audit (row_id, id)")};
}

PgAuditTrail::PgAuditTrail(std::unique_ptr<PgConnection> conn) : m_conn(std::move(conn)) {}

PgAuditTrail::~PgAuditTrail() = default;

Expected<std::unique_ptr<PgAuditTrail>, StoreError> PgAuditTrail::open(const ReclaimConfig &config)
{
    auto conn = PgConnection::open(config);
    if (!conn)
        return unexpected(conn.error());
    return std::unique_ptr<PgAuditTrail>(new PgAuditTrail(std::move(*conn)));
}

Expected<AuditPage, StoreError> PgAuditTrail::page(const AuditPageRequest &request)
{
    // The history view may be opened before any writing run created Reclaim's schema.
    const auto schema = m_conn->hasReclaimTable(QStringLiteral("audit"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema)
        return AuditPage{};
    QSqlQuery q(m_conn->database());
    q.setForwardOnly(true);

    const AuditFilter &f = request.filter;
    QStringList where;
    QVariantList binds;
    if (request.beforeId > 0) {
        where << QStringLiteral("id < ?");
        binds << request.beforeId;
    }
    if (!f.rowId.isEmpty()) {
        where << QStringLiteral("row_id = ?");
        binds << f.rowId;
    }
    if (!f.domain.isEmpty()) {
        where << QStringLiteral("domain = ?");
        binds << f.domain;
    }
    if (!f.actor.isEmpty()) {
        // As actorName() writes it: "user", "user@host", or "<kind>@host" without a user name.
        where << QStringLiteral("(actor_user = ? OR actor_user || '@' || actor_host = ? OR "
                                "(actor_user = '' AND actor_kind || '@' || actor_host = ?))");
        binds << f.actor << f.actor << f.actor;
    }
    if (!f.result.isEmpty()) {
        where << QStringLiteral("result = ?");
        binds << f.result;
    }
    if (f.from.isValid()) {
        where << QStringLiteral("at >= ?::timestamptz");
        binds << f.from.toUTC().toString(Qt::ISODateWithMs);
    }
    if (f.to.isValid()) {
        where << QStringLiteral("at < ?::timestamptz");
        binds << f.to.toUTC().toString(Qt::ISODateWithMs);
    }
    const int limit = std::clamp(request.limit, 1, 10000);
    // One more than asked: whether older rows match too, without a count over the whole table.
    q.prepare(QStringLiteral("SELECT id, at, run_id, actor_kind, actor_host, actor_user, "
                             "generation, domain, row_id, action, observed_status, "
                             "observed_updated_at, result, coalesce(detail, '') "
                             "FROM reclaim.audit %1 ORDER BY id DESC LIMIT %2")
                  .arg(where.isEmpty()
                           ? QString()
                           : QStringLiteral("WHERE ") + where.join(QStringLiteral(" AND ")))
                  .arg(limit + 1));
    for (const QVariant &v : binds)
        q.addBindValue(v);
    if (!q.exec())
        return unexpected(m_conn->failure(QStringLiteral("reading the audit trail"), q));
    AuditPage page;
    page.entries.reserve(limit);
    while (q.next()) {
        if (page.entries.size() == limit) {
            page.more = true;
            break;
        }
        AuditEntry e;
        e.id = q.value(0).toLongLong();
        e.at = q.value(1).toDateTime().toUTC();
        e.runId = q.value(2).toString();
        e.actorKind = q.value(3).toString();
        e.actorHost = q.value(4).toString();
        e.actorUser = q.value(5).toString();
        e.generation = q.value(6).toLongLong();
        e.domain = q.value(7).toString();
        e.rowId = q.value(8).toString();
        e.action = q.value(9).toString();
        e.observedStatus = q.value(10).toString();
        e.observedUpdatedAt = q.value(11).toString();
        e.result = q.value(12).toString();
        e.detail = q.value(13).toString();
        page.entries << e;
    }
    return page;
}

} // namespace reclaim
