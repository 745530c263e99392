// Stage 5b, before anything executes (#29): the blast-radius guard. A domain executes nothing
// in a run, and every one of its actions is held for an operator with the reason, when
//   - a queue of it has no trace in Redis — no meta hash, no id counter, no event log, no job
//     in any structure. That is what a misspelt queue name, a wrong key prefix or database, the
//     wrong Redis, or a Redis that lost its data all look like: the first four must never write
//     (in a FAIL domain every stale row would be marked FAILED), the last needs every row
//     recovered, and only an operator can tell them apart. A trace that could not be checked
//     holds the domain too: "could not look" is never "there";
//   - it planned more actions than run.guard.maxActions;
//   - more than run.guard.maxAbsentShare of its candidates are ABSENT, once it has at least
//     run.guard.minCandidates of them: most of a backlog gone at once is a lost queue, not a
//     few dead workers.
// Actions whose policy is observe are neither counted nor held: they never run anyway. An
// operator's approval runs a held action (approvedrecheck.h).
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "ports/queueinspector.h"

namespace reclaim {

// Sets DomainReport::heldReason and heldLimit, and each of the domain's pending actions'
// heldReason (and resultDetail), for every domain over a limit. Returns how many were held.
int holdDomainsOverGuard(const ReclaimConfig &config, RunReport &report, QueueInspector &inspector);

} // namespace reclaim
