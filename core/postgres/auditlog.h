// Reclaim's audit trail (reclaim.audit): one row per action attempted — who, what, the observed
// precondition, the result, the generation.
#pragma once

#include "domain/action.h"
#include "ports/jobstore.h"

#include <QString>
#include <optional>

class QSqlQuery;

namespace reclaim {

// Appends the audit row of `action` with `result` and `detail` on `query`'s connection (inside
// the caller's transaction, if any). False when the INSERT failed: the query's lastError says why.
bool appendAudit(QSqlQuery &query, const Action &action, ActionResult result, const QString &detail,
                 const Actor &actor);

// In one statement, outside any transaction: the action's audit row with result "started" and,
// for a requeue, one use of the row's retry budget (reclaim.requeue, tied to that row). Returns
// the audit row's id; nullopt when the statement failed (nothing was recorded).
std::optional<qint64> recordIntent(QSqlQuery &query, const Action &action, const Actor &actor);

// Completes the audit row `auditId` with `result` and `detail`; with `releaseBudget`, the retry
// budget use recorded with it is given back (the enqueue left nothing runnable). False when the
// statement failed or found no such row.
bool finishAudit(QSqlQuery &query, qint64 auditId, ActionResult result, const QString &detail,
                 bool releaseBudget);
// The audit result of an operator undoing a rejection: not an action's result, so not an
// ActionResult.
inline QString rejectionUndoneResultName()
{
    return QStringLiteral("rejection-undone");
}

// The same with the result's name spelled out (rejectionUndoneResultName()).
bool appendAudit(QSqlQuery &query, const Action &action, const QString &resultName,
                 const QString &detail, const Actor &actor);

} // namespace reclaim
