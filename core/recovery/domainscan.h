// Stage 4: page through a domain's queues for candidates the direct lookup did not find
// runnable, matching each job's payload data.jobId (jobs enqueued under an older id rule).
#pragma once

#include "config/domainconfig.h"
#include "domain/runreport.h"
#include "ports/queueinspector.h"

namespace reclaim {

// The runnable states, in the order they are read: active last, so a job that moves from
// waiting to active while the scan runs is still seen.
QStringList scanOrder();

// Updates `verdicts` in place (found → Scheduled; a failed page → every still-unresolved
// candidate Unknown) and returns what the scan did. Does nothing when every candidate is
// already Scheduled.
ScanStats scanDomain(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                     QueueInspector &inspector, int pageSize);

} // namespace reclaim
