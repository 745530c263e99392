// Stage 4: page through a domain's queues for candidates the direct lookup did not find
// runnable, matching each job's payload data.jobId (jobs enqueued under an older id rule).
#pragma once

#include "config/domainconfig.h"
#include "domain/runreport.h"
#include "ports/queueinspector.h"

namespace reclaim {

// The runnable states, in the order they are read: upstream first (a job promoted from delayed
// into wait, or released from waiting-children, moves to a state not read yet), and active both
// first and last (a job retried or moved back out of active after the first read is seen
// upstream; one taken into active while the scan runs is seen by the last). `prioritized` after
// `wait`, and `paused` and `wait` once more after it, continuing where they ended: changePriority
// writes no event, and moves a job from wait to prioritized or back to the head of wait.
QStringList scanOrder();

// Updates `verdicts` in place (found → Scheduled; a failed page, a state that moved faster than
// it could be read, or a job whose payload could not be parsed → every still-unresolved
// candidate Unknown) and returns what the scan did. Does nothing when every candidate is
// already Scheduled.
ScanStats scanDomain(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                     QueueInspector &inspector, int pageSize);

} // namespace reclaim
