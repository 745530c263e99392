// An operator approves or rejects a held action (#29), from the command line or the console.
// Approving claims it first (held → approved, conditional: of two approvers one wins, the other
// is told who did), then checks it again from scratch: the row as it is now (moved on →
// superseded), the plan as it would be now (the payload rebuilt, the budget counted again), and
// under a fresh lock and generation a new lookup of the job (runnable → superseded). Only then
// does it run, with its own audit row; what it did settles the entry (executed, superseded), and
// an approval that decided nothing (lock busy, could not look, a failed write) holds it again
// with the reason, for the next approval.
#pragma once

#include "domain/heldaction.h"
#include "ports/heldactionstore.h"
#include "recovery/approvedrecheck.h"

#include <functional>

namespace reclaim {

struct HeldDecision
{
    enum class Outcome
    {
        Executed,     // approved and run: its write applied
        Superseded,   // approved, but the row or the job had moved on: nothing run
        HeldAgain,    // approved, but nothing could be decided: held again with the reason
        Rejected,     // rejected (--reject), or an earlier rejection covers it
        AlreadyTaken, // not held any more: `current` says by whom and how
        NoSuchAction, // no held action has this id
        StoreFailed,  // the held-action store could not be read or written: `detail` says why
    };
    qint64 id = 0;
    Outcome outcome = Outcome::StoreFailed;
    QString detail;
    std::optional<HeldAction> current; // the entry as it stands afterwards, when known
    std::optional<Action> action;      // what ran, with its result, when something did
};

QString heldOutcomeName(HeldDecision::Outcome o); // "executed", "already-taken", ...

// Approves `ids` at once (#30: the guard held a whole domain after a data loss, and on-call
// approves it): one lock and generation for all of them, taken when the first needs it; claimed,
// read, planned and looked up again 1,000 at a time, each step one statement or one pipeline;
// what is still ABSENT executed in batches as a run executes them; every entry settled in one
// statement per step. Every action keeps its own decision, told to `each` in the order of `ids`
// as its step settles — and not kept: an approval of 100,000 holds one step in memory.
void approveHeldActions(const ApprovedRecheckPorts &ports, HeldActionStore &held,
                        const QList<qint64> &ids, const Actor &approver,
                        const std::function<void(const HeldDecision &)> &each);

inline HeldDecision approveHeldAction(const ApprovedRecheckPorts &ports, HeldActionStore &held,
                                      qint64 id, const Actor &approver)
{
    HeldDecision out;
    approveHeldActions(ports, held, {id}, approver, [&](const HeldDecision &d) { out = d; });
    return out;
}

// Rejects them (held → rejected) and records the rejections the planner reads, so no run offers
// an action again while its row is unchanged: in sets of 5,000, every id its own decision.
QList<HeldDecision> rejectHeldActions(JobStore &store, HeldActionStore &held,
                                      const QList<qint64> &ids, const Actor &by,
                                      const QString &reason);

inline HeldDecision rejectHeldAction(JobStore &store, HeldActionStore &held, qint64 id,
                                     const Actor &by, const QString &reason)
{
    return rejectHeldActions(store, held, {id}, by, reason).value(0);
}

} // namespace reclaim
