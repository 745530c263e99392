// Approved later, checked again (SPEC §4): an action an operator approves minutes after it was
// planned runs only if, under a freshly taken lock and generation, a new direct lookup of that
// one candidate still finds it ABSENT.
#pragma once

#include "config/reclaimconfig.h"
#include "domain/action.h"
#include "domain/candidate.h"
#include "domain/verdict.h"
#include "ports/jobstore.h"
#include "ports/queueinspector.h"
#include "ports/queuewriter.h"
#include "ports/recoverylock.h"

namespace reclaim {

struct ApprovedRecheckPorts
{
    const ReclaimConfig &config;
    JobStore *store; // null when it could not be opened: storeError says why
    const QString &storeError;
    QueueInspector &inspector;
    QueueWriter &writer;
    RecoveryLock &lock;
};

struct ApprovedRun
{
    Action action;
    // What the fresh look under the lock found; nullopt when it did not run (the lock could not
    // be taken, the store or the domain is missing, or a newer run fenced this one).
    std::optional<Verdict> fresh;
};

// The action with its result: Dropped (no lock, domain gone, or no longer ABSENT — audited),
// Fenced, or whatever executing it gave.
ApprovedRun runApprovedRecheck(const ApprovedRecheckPorts &ports, Action action,
                               const Candidate &candidate, const Actor &approver);

inline Action runApprovedAction(const ApprovedRecheckPorts &ports, Action action,
                                const Candidate &candidate, const Actor &approver)
{
    return runApprovedRecheck(ports, std::move(action), candidate, approver).action;
}

} // namespace reclaim
