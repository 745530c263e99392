// Reclaim's audit trail (reclaim.audit): one row per action attempted — who, what, the observed
// precondition, the result, the generation.
#pragma once

#include "domain/action.h"
#include "ports/jobstore.h"

class QSqlQuery;

namespace reclaim {

// Appends the audit row of `action` with `result` and `detail` on `query`'s connection (inside
// the caller's transaction, if any). False when the INSERT failed: the query's lastError says why.
bool appendAudit(QSqlQuery &query, const Action &action, ActionResult result, const QString &detail,
                 const Actor &actor);

} // namespace reclaim
