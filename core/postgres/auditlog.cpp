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

} // namespace reclaim
