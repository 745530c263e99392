// Stage 3: look each candidate up under its current job id in each of its domain's queues.
#pragma once

#include "config/domainconfig.h"
#include "domain/verdict.h"
#include "ports/queueinspector.h"

namespace reclaim {

// Returns one CandidateVerdict per candidate, in order, with its direct-lookup evidence and a
// provisional verdict: Scheduled (runnable somewhere), Unknown (a lookup failed) or Absent
// (every lookup succeeded and found nothing runnable — still subject to the scan).
QList<CandidateVerdict> lookUpDirectly(const DomainConfig &domain,
                                       const QList<Candidate> &candidates,
                                       QueueInspector &inspector);

} // namespace reclaim
