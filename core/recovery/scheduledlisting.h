// How many healthy candidates a run's report lists (run.scheduledListed).
#pragma once

#include "domain/runreport.h"

namespace reclaim {

// Keeps every ABSENT and UNKNOWN candidate of the domain and the first `listed` SCHEDULED ones
// (in the order they were read); the others are let go and only their row ids kept, in
// domain.unlistedScheduled. Idempotent: a run calls it after the lookup and again after the
// scan, which may find more jobs healthy. The verdicts themselves do not change.
void listScheduledUpTo(DomainReport &domain, int listed);

} // namespace reclaim
