// Reclaim's audit trail (reclaim.audit): one row per action attempted — who, what, the observed
// precondition, the result, the generation.
#pragma once

#include "domain/action.h"
#include "ports/jobstore.h"

#include <QString>

class QSqlQuery;

namespace reclaim {

// Appends the audit row of `action` with `result` and `detail` on `query`'s connection (inside
// the caller's transaction, if any). False when the INSERT failed: the query's lastError says why.
bool appendAudit(QSqlQuery &query, const Action &action, ActionResult result, const QString &detail,
                 const Actor &actor);

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
