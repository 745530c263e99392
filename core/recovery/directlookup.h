// Stage 3: look each candidate up under its current job id in each of its domain's queues.
#pragma once

#include "config/domainconfig.h"
#include "domain/verdict.h"
#include "ports/queueinspector.h"

namespace reclaim {

// How much of what a lookup reads is kept. Full: everything, for a few candidates an operator
// looks at. Light: for a whole run, where half of a lost Redis's candidates can be healthy jobs:
// a SCHEDULED candidate's payload and row JSON are let go as soon as its slice is read (see
// releaseScheduledDetails), and so is the payload of a job found deep in a long list. The
// verdicts are the same either way.
enum class LookupDetail
{
    Full,
    Light
};

// Returns one CandidateVerdict per candidate, in order, with its direct-lookup evidence and a
// provisional verdict: Scheduled (runnable somewhere), Unknown (a lookup failed) or Absent
// (every lookup succeeded and found nothing runnable — still subject to the scan).
// The candidates are taken by value: a run moves its whole list in, and it is let go as soon as
// the verdicts hold them.
QList<CandidateVerdict> lookUpDirectly(const DomainConfig &domain, QList<Candidate> candidates,
                                       QueueInspector &inspector,
                                       LookupDetail detail = LookupDetail::Full);

// Settles each "list-unresolved" sighting (its job sits further from a list's tail than the probe
// walks) by reading the queue's lists once (wait and paused before active, so a job moving from
// waiting to active while they are read is still seen): it becomes the list's state, "stray", or
// a failed lookup when a list could not be read to its end.
void resolveLongLists(const QString &keyPrefix, const QList<Sighting *> &sightings,
                      QueueInspector &inspector);

// Stage 4b: every candidate still Absent after the scan is looked up directly once more, just
// before planning (its job id is known), so a job that moved back into a state the scan had
// already read is seen. A re-check that finds it, or fails, replaces Absent; its sightings are
// added to the evidence. Returns how many candidates were re-checked.
int recheckAbsent(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                  QueueInspector &inspector);

// Once every verdict is settled: a SCHEDULED candidate's job is healthy and nothing is done to
// it, so the payloads its lookups read and its row's JSON are let go (its status, updatedAt, the
// job's state, lock and timestamps stay as the evidence). After a data loss half the candidates
// can be healthy jobs, each payload up to 16 KiB; ABSENT and UNKNOWN keep theirs, as an operator
// may act on them.
void releaseScheduledDetails(QList<CandidateVerdict> &verdicts);

} // namespace reclaim
