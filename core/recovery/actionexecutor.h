// Stage 6: run one planned action — enqueue (requeue only), then the fenced conditional write.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "fencing/locklease.h"
#include "ports/jobstore.h"
#include "ports/queuewriter.h"

namespace reclaim {

// Fills in the action's result. Records the attempt (its audit row, and a requeue's use of the
// retry budget) before trying anything and completes it afterwards, so a row write that fails
// after the enqueue is still audited ("enqueued, row write failed: ...") and counted. Never
// writes the row if the enqueue failed, never writes a job row once the lease is lost, and
// reports 0 rows as Stale without touching the parent.
void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor);

} // namespace reclaim
