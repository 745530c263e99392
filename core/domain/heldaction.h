// An action held for an operator (#29), as Reclaim keeps it between runs: what was planned, on
// the row as it was seen, why it waits, and where it stands. A run holds it; the next runs
// confirm it (still planned the same: held once, never twice) or supersede it (the row moved on,
// the job came back); an operator approves or rejects it.
#pragma once

#include "domain/action.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <optional>

namespace reclaim {

enum class HeldState
{
    Held,       // waiting for an operator
    Approved,   // an operator approved it; the approving process is running it now
    Rejected,   // an operator said no
    Superseded, // a later run or the approval's re-check found the row or the job moved on
    Executed    // it ran (on approval, or on its own once nothing held it any more)
};

QString heldStateName(HeldState s); // "held", "approved", ...
std::optional<HeldState> heldStateNamed(const QString &name);

struct HeldAction
{
    qint64 id = 0;
    // Domain, row, kind, type, the queue target (requeue), the reason it was planned, the
    // precondition seen (status, updatedAt, generation) and heldReason. No payload: an approval
    // rebuilds it from the database, as the planner does.
    Action action;
    QString heldLimit; // the guard's limit (no-trace, max-actions, ...), or "policy"
    QString runId;     // the run that first held it
    QDateTime heldAt;
    QString lastRunId; // the latest run that planned it the same way
    QDateTime lastSeenAt;
    HeldState state = HeldState::Held;
    QString stateBy; // "user@host" of the operator, or the run that moved it on
    QDateTime stateAt;
    QString stateDetail;
};

// How many actions wait for an operator, per domain, kind and what holds them (the guard's
// limit, or "policy"), and since when the oldest one waits: for metrics and alerts.
struct HeldGroup
{
    QString domain;
    ActionKind kind = ActionKind::Fail;
    QString limit;
    int count = 0;
    QDateTime oldest;
};

// What an approver gets when the action is no longer theirs to run.
struct HeldClaim
{
    bool claimed = false;              // true: it was held and is now approved by the caller
    std::optional<HeldAction> current; // as it stands (after the claim, or the reason it failed)
};

// One run's changes to the held actions of one domain (recovery/heldsync.h decides them, the
// held-action store applies them).
struct HeldTransition
{
    qint64 id = 0;
    HeldState to = HeldState::Superseded;
    QString detail;
};

struct HeldKept
{
    qint64 id = 0;
    QString rowId;
    QString heldReason; // refreshed: the counts in a guard's reason change from run to run
    QString heldLimit;
};

struct HeldNew
{
    // The run's own action: a plan lives only while the report it was made from does, and a
    // copy of each action would double a mass hold's memory.
    const Action *action = nullptr;
    QString heldLimit;
};

struct HeldSyncPlan
{
    QList<HeldNew> toHold;
    QList<HeldKept> kept;
    QList<HeldTransition> settled;

    bool isEmpty() const { return toHold.isEmpty() && kept.isEmpty() && settled.isEmpty(); }
};

} // namespace reclaim
