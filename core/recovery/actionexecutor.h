// Stage 6: run one planned action — enqueue (requeue only), then the fenced conditional write.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "fencing/locklease.h"
#include "ports/jobstore.h"
#include "ports/queuewriter.h"

namespace reclaim {

// Fills in the action's result. Never writes the row if the enqueue failed, never writes
// anything once the lease is lost, and reports 0 rows as Stale without touching the parent.
void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor);

} // namespace reclaim
