// Stage 5: an action for every ABSENT candidate — REQUEUE where its input can be rebuilt from
// the database and the retry budget allows, FAIL otherwise. Nothing for SCHEDULED or UNKNOWN.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "domain/verdict.h"
#include "ports/jobstore.h"

namespace reclaim {

QList<Action> planActions(const DomainConfig &domain, const QList<CandidateVerdict> &verdicts,
                          JobStore &store, qint64 generation);

} // namespace reclaim
