#include "postgres/auditlog.h"

#include "postgres/sqltext.h"

#include <QSqlQuery>
#include <QVariantList>

namespace reclaim {

bool appendAudit(QSqlQuery &q, const Action &a, ActionResult result, const QString &detail,
                 const Actor &actor)
{
    return appendAudit(q, a, actionResultName(result), detail, actor);
}

bool appendAudit(QSqlQuery &q, const Action &a, const QString &resultName, const QString &detail,
                 const Actor &actor)
{
    q.prepare(QStringLiteral(
        "INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, generation, "
        "domain, row_id, action, observed_status, observed_updated_at, result, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v :
         QVariantList{sqlText(actor.runId), sqlText(actor.kind), sqlText(actor.host),
                      sqlText(actor.user), a.precondition.generation, sqlText(a.domain),
                      sqlText(a.rowId), actionKindName(a.kind), sqlText(a.precondition.status),
                      sqlText(a.precondition.updatedAtText), resultName, sqlText(detail)})
        q.addBindValue(v);
    return q.exec();
}

std::optional<qint64> recordIntent(QSqlQuery &q, const Action &a, const Actor &actor)
{
    // Data-modifying CTEs: both rows or neither, committed by the one statement.
    q.prepare(QStringLiteral(
        "WITH intent AS (INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, "
        "generation, domain, row_id, action, observed_status, observed_updated_at, result, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'started', ?) RETURNING id), "
        "budget AS (INSERT INTO reclaim.requeue (domain, row_id, generation, audit_id) "
        "SELECT ?, ?, ?, id FROM intent WHERE ? = 1) "
        "SELECT id FROM intent"));
    for (const QVariant &v : QVariantList{
             sqlText(actor.runId), sqlText(actor.kind), sqlText(actor.host), sqlText(actor.user),
             a.precondition.generation, sqlText(a.domain), sqlText(a.rowId), actionKindName(a.kind),
             sqlText(a.precondition.status), sqlText(a.precondition.updatedAtText),
             sqlText(a.reason), sqlText(a.domain), sqlText(a.rowId), a.precondition.generation,
             a.kind == ActionKind::Requeue ? 1 : 0})
        q.addBindValue(v);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return q.value(0).toLongLong();
}

bool finishAudit(QSqlQuery &q, qint64 auditId, ActionResult result, const QString &detail,
                 bool releaseBudget)
{
    q.prepare(QStringLiteral(
        "WITH done AS (UPDATE reclaim.audit SET result = ?, detail = ? WHERE id = ? RETURNING id), "
        "freed AS (DELETE FROM reclaim.requeue WHERE ? = 1 AND audit_id IN (SELECT id FROM done)) "
        "SELECT count(*) FROM done"));
    q.addBindValue(actionResultName(result));
    q.addBindValue(sqlText(detail));
    q.addBindValue(auditId);
    q.addBindValue(releaseBudget ? 1 : 0);
    return q.exec() && q.next() && q.value(0).toLongLong() == 1;
}

} // namespace reclaim
