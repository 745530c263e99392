// An action's write (SPEC §3 step 6): in one transaction, the fence check, the job row written
// only where id, status and updatedAt still equal what was read, the parent cleanup only after a
// 1-row write and only while the parent is still in progress, the retry-budget record and the
// audit row.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "ports/jobstore.h"

namespace reclaim {

class PgConnection;

Expected<WriteOutcome, StoreError> writeAction(PgConnection &conn, const DomainConfig &domain,
                                               const Action &action, const Actor &actor);

} // namespace reclaim
