// Hand-built RunReports for the console's unit tests: candidates of each verdict with evidence,
// and the actions a run would plan for them.
#pragma once

#include "domain/runreport.h"

namespace reclaim::test {

// One candidate of `domain` with the given verdict and plausible evidence.
CandidateVerdict syntheticCandidate(const QString &domain, const QString &id, Verdict verdict,
                                    int ageMinutes = 120);

// The action a run plans for an ABSENT candidate (REQUEUE with a payload when `requeue`).
Action syntheticAction(const CandidateVerdict &c, bool requeue);

// A completed report over `candidates`, planning an action for every ABSENT one (REQUEUE for
// type COMPOSE, FAIL otherwise).
RunReport syntheticReport(const QList<CandidateVerdict> &candidates,
                          const QDateTime &finishedAt = {});

// `count` candidates spread over three domains, verdicts cycling UNKNOWN, ABSENT, SCHEDULED.
QList<CandidateVerdict> manyCandidates(int count);

} // namespace reclaim::test
