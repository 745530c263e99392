// A planned recovery action, its precondition, and what happened when it ran.
#pragma once

#include "domain/policy.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>

namespace reclaim {

enum class ActionKind
{
    Requeue,
    Fail
};

enum class ActionResult
{
    Pending,       // planned, not run (dry run, observe policy, or awaiting approval)
    Applied,       // the conditional write changed the row
    Stale,         // 0 rows: the row moved on after it was read; nothing else done
    Fenced,        // a newer run has started: this run may no longer write
    EnqueueFailed, // the enqueue did not leave a runnable job; the row is untouched
    Dropped,       // re-checked before running and no longer ABSENT, or the lock was busy
    Rejected,      // an operator said no (recorded; not offered again while the row is unchanged)
    LockLost,      // the run's lock expired or changed hands; no write issued
    Unknown,       // sent, never answered: whether the job was enqueued (or the row written) is not
                   // known; the row was left as it was, and the next run looks again
    Error,         // the database write itself failed (nothing committed), or the plan could not
                   // be settled (the restore query failed or returned no JSON object): nothing
                   // enqueued or written
};

QString actionKindName(ActionKind k);
QString actionResultName(ActionResult r);

struct Precondition
{
    QString status;
    QString updatedAtText;
    qint64 generation = 0;
};

struct ParentChange
{
    QString table;
    QString column;
    QString parentId;
    QString newValue;
    bool attempted = false;
    int rows = 0; // 0: the parent was no longer in progress (for example already READY)
};

struct Action
{
    QString id; // stable within a run: "<domain>/<row id>"
    QString domain;
    QString rowId;
    QString jobType;
    ActionKind kind = ActionKind::Fail;
    QString reason;
    Precondition precondition;
    // Requeue only: where the rebuilt job goes, under which id and name, with which payload.
    QString queue;
    QString jobId;
    QString jobName;
    QByteArray payload;
    // The job options written with it where no retained job under the id carries its own
    // (domains[].jobOptions, a JSON object); empty: the library's defaults.
    QByteArray jobOptions;

    ActionResult result = ActionResult::Pending;
    QString resultDetail;
    // Its audit row, recorded (committed) before it was attempted; 0 until then.
    qint64 auditId = 0;
    QDateTime executedAt;
    ParentChange parent;
    QString rejectedBy; // Rejected only: the operator ("user@host") whose "no" is recorded
    // What the domain's policy says for this kind (domains[].policy): a run executes only Auto.
    Policy policy = Policy::Auto;
    // Why it waits for an operator: its policy is approve, or the blast-radius guard held its
    // domain (recovery/blastradiusguard.h). A run does not execute it; an approval does. It
    // stays Pending. Never set for Observe: observed actions are reported, not held.
    QString heldReason;
    // Its entry among the held actions Reclaim keeps (reclaim.held_action), once recorded; what
    // an operator names to approve or reject it (reclaim --approve ID). 0: not recorded.
    qint64 heldId = 0;

    bool isHeld() const { return result == ActionResult::Pending && !heldReason.isEmpty(); }
    // Pending, not held, and allowed to run on its own.
    bool runsOnItsOwn() const
    {
        return result == ActionResult::Pending && heldReason.isEmpty() && policy == Policy::Auto;
    }
};

} // namespace reclaim

// Every member is relocatable: a run's list of 200,000 actions grows by realloc(), not by
// holding the old array and a new one at once (candidate.h).
Q_DECLARE_TYPEINFO(reclaim::ParentChange, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(reclaim::Precondition, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(reclaim::Action, Q_RELOCATABLE_TYPE);
