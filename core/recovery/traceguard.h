// Stage 5b, before anything executes (#29, first part of the blast-radius guard): a domain any
// of whose queues has no trace in Redis — no meta hash, no id counter, no event log, no job in
// any structure — executes nothing. That is what a misspelt queue name, a wrong key prefix or
// database, the wrong Redis, or a Redis that lost its data all look like: the first four must
// never write (in a FAIL domain every stale row would be marked FAILED), the last needs every
// row recovered, and only an operator can tell them apart. Every action of such a domain is
// held with the reason; an operator's approval runs it (approvedrecheck.h). A queue whose trace
// could not be checked holds the domain too: "could not look" is never "there".
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "ports/queueinspector.h"

namespace reclaim {

// Sets DomainReport::heldReason and each of its pending actions' heldReason (and resultDetail)
// for every domain that has a pending action and a queue without a trace. Returns how many
// domains were held.
int holdDomainsWithoutTrace(const ReclaimConfig &config, RunReport &report,
                            QueueInspector &inspector);

} // namespace reclaim
