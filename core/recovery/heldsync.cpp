#include "recovery/heldsync.h"

#include <QHash>
#include <QSet>

namespace reclaim {

namespace {

bool sameAsHeld(const Action &a, const HeldAction &h)
{
    return a.kind == h.action.kind && a.precondition.status == h.action.precondition.status &&
           a.precondition.updatedAtText == h.action.precondition.updatedAtText;
}

QString limitOf(const DomainReport &domain, const Action &a)
{
    return domain.heldReason.isEmpty() || a.heldReason != domain.heldReason
               ? QStringLiteral("policy")
               : domain.heldLimit;
}

// What this run's own action for the row says about the held entry; nullopt: nothing decided.
std::optional<HeldTransition> byAction(const HeldAction &h, const Action &a, const QString &runId)
{
    const auto to = [&](HeldState state, const QString &detail) {
        return std::optional<HeldTransition>(HeldTransition{h.id, state, detail});
    };
    switch (a.result) {
    case ActionResult::Applied:
        return to(
            HeldState::Executed,
            QStringLiteral("run %1 executed it on its own: nothing held it any more").arg(runId));
    case ActionResult::Rejected:
        return to(HeldState::Rejected, QStringLiteral("rejected by %1").arg(a.rejectedBy));
    case ActionResult::Stale:
        return to(HeldState::Superseded,
                  QStringLiteral("run %1 found the row moved on (0 rows written)").arg(runId));
    case ActionResult::Dropped:
        return to(HeldState::Superseded,
                  QStringLiteral("run %1 dropped it: %2").arg(runId, a.resultDetail));
    case ActionResult::Pending:
        if (a.isHeld() && !sameAsHeld(a, h))
            return to(HeldState::Superseded,
                      QStringLiteral("run %1 planned %2 on the row as %3, updatedAt %4 instead")
                          .arg(runId, actionKindName(a.kind), a.precondition.status,
                               a.precondition.updatedAtText));
        if (!a.isHeld() && a.policy == Policy::Observe)
            return to(HeldState::Superseded,
                      QStringLiteral("the policy of %1 actions is now observe")
                          .arg(actionKindName(a.kind).toLower()));
        return std::nullopt; // held the same (kept), or planned but not run here (a console)
    case ActionResult::Fenced:
    case ActionResult::EnqueueFailed:
    case ActionResult::LockLost:
    case ActionResult::Unknown:
    case ActionResult::Error:
        return std::nullopt; // tried and failed without deciding anything: still waiting
    }
    return std::nullopt;
}

// What this run's verdict on the row says when it planned nothing for it.
std::optional<HeldTransition> byVerdict(const HeldAction &h, const CandidateVerdict *v,
                                        const DomainReport &domain, const QString &runId)
{
    if (!v && domain.unlistedScheduled.contains(h.action.rowId))
        return HeldTransition{h.id, HeldState::Superseded,
                              QStringLiteral("run %1: its job is runnable again (one of %2 "
                                             "SCHEDULED candidates counted, not listed)")
                                  .arg(runId)
                                  .arg(domain.unlistedScheduled.size())};
    if (!v)
        return HeldTransition{h.id, HeldState::Superseded,
                              QStringLiteral("run %1: the row is no longer a candidate (its "
                                             "status or age changed)")
                                  .arg(runId)};
    if (v->candidate.status != h.action.precondition.status ||
        v->candidate.updatedAtText != h.action.precondition.updatedAtText)
        return HeldTransition{h.id, HeldState::Superseded,
                              QStringLiteral("run %1: the row moved on (now %2, updatedAt %3)")
                                  .arg(runId, v->candidate.status, v->candidate.updatedAtText)};
    if (v->verdict == Verdict::Scheduled)
        return HeldTransition{
            h.id, HeldState::Superseded,
            QStringLiteral("run %1: its job is runnable again (%2)").arg(runId, v->summary())};
    return std::nullopt; // UNKNOWN: could not look, so nothing is settled
}

} // namespace

HeldSyncPlan planHeldSync(const DomainReport &domain, const QList<Action> &actions,
                          const QList<HeldAction> &open, const QString &runId)
{
    HeldSyncPlan plan;
    // Only the open entries are looked up by row: a run with nothing held before (every run of
    // a recovery that executes on its own) builds no index over its tens of thousands of rows.
    QHash<QString, const Action *> actionOf;
    QHash<QString, const CandidateVerdict *> verdictOf;
    if (!open.isEmpty()) {
        actionOf.reserve(actions.size());
        for (const Action &a : actions)
            if (a.domain == domain.name)
                actionOf.insert(a.rowId, &a);
        verdictOf.reserve(domain.candidates.size());
        for (const CandidateVerdict &v : domain.candidates)
            verdictOf.insert(v.candidate.id, &v);
    }

    QSet<QString> keptRows;
    for (const HeldAction &h : open) {
        const Action *a = actionOf.value(h.action.rowId);
        if (a && a->isHeld() && sameAsHeld(*a, h)) {
            plan.kept << HeldKept{h.id, h.action.rowId, a->heldReason, limitOf(domain, *a)};
            keptRows.insert(h.action.rowId);
            continue;
        }
        const auto settled = a ? byAction(h, *a, runId)
                               : byVerdict(h, verdictOf.value(h.action.rowId), domain, runId);
        if (settled)
            plan.settled << *settled;
        else
            keptRows.insert(h.action.rowId); // left as it is: nothing new for its row
    }
    for (const Action &a : actions)
        if (a.domain == domain.name && a.isHeld() && !keptRows.contains(a.rowId))
            plan.toHold << HeldNew{&a, limitOf(domain, a)};
    return plan;
}

void keepHeldActions(HeldActionStore &store, RunReport &report, const Actor &run)
{
    for (const DomainReport &d : std::as_const(report.domains)) {
        if (d.candidateError)
            continue; // nothing was seen: nothing is settled, nothing new is held
        auto open = store.heldActions(HeldFilter{d.name, std::nullopt, {}, true});
        if (!open) {
            report.heldStoreErrors << QStringLiteral("%1: %2").arg(d.name, open.error().message);
            continue;
        }
        QList<HeldAction> held;
        for (const HeldAction &h : std::as_const(*open))
            if (h.state == HeldState::Held)
                held << h;
        const HeldSyncPlan plan = planHeldSync(d, report.actions, held, report.runId);
        if (plan.isEmpty())
            continue;
        const auto ids = store.applyHeldSync(d.name, plan, run);
        if (!ids) {
            report.heldStoreErrors << QStringLiteral("%1: %2").arg(d.name, ids.error().message);
            continue;
        }
        for (Action &a : report.actions)
            if (a.domain == d.name && a.isHeld())
                a.heldId = ids->value(a.rowId);
    }
    // What waits now, whoever held it: the daemon's metrics and alerts read this.
    auto groups = store.heldGroups();
    if (groups)
        report.heldOpen = *groups;
    else
        report.heldStoreErrors << groups.error().message;
}

} // namespace reclaim
