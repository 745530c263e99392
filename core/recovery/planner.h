// Stage 5: an action for every ABSENT candidate — REQUEUE where its input can be rebuilt from
// the database and the retry budget allows, FAIL otherwise. Nothing for SCHEDULED or UNKNOWN.
// A candidate an operator rejected as it is now (same status and updatedAt) gets its action
// already Rejected, so no run executes or offers it; once the row moves on it is planned anew.
// What it reads is read in sets (#30): the retry budget and the restore payloads of a domain's
// orphans in one statement per batch of ids, the rejections once per domain.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "domain/verdict.h"
#include "ports/jobstore.h"

namespace reclaim {

QList<Action> planActions(const DomainConfig &domain, const QList<CandidateVerdict> &verdicts,
                          JobStore &store, qint64 generation);

} // namespace reclaim
