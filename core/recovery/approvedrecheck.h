// Approved later, checked again (SPEC §4): an action an operator approves minutes after it was
// planned runs only if, under a freshly taken lock and generation, a new direct lookup of that
// one candidate still finds it ABSENT.
#pragma once

#include "config/reclaimconfig.h"
#include "domain/action.h"
#include "domain/candidate.h"
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

// The action with its result: Dropped (no lock, domain gone, or no longer ABSENT — audited),
// Fenced, or whatever executing it gave.
Action runApprovedAction(const ApprovedRecheckPorts &ports, Action action,
                         const Candidate &candidate, const Actor &approver);

} // namespace reclaim
