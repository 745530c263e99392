#include "recovery/heldapproval.h"

#include "recovery/planner.h"

namespace reclaim {

namespace {

using Outcome = HeldDecision::Outcome;

HeldDecision notTaken(qint64 id, const HeldClaim &claim)
{
    HeldDecision d;
    d.id = id;
    if (!claim.current) {
        d.outcome = Outcome::NoSuchAction;
        d.detail = QStringLiteral("no held action has id %1").arg(id);
        return d;
    }
    const HeldAction &h = *claim.current;
    d.current = h;
    d.outcome = Outcome::AlreadyTaken;
    d.detail = QStringLiteral("already %1 by %2 at %3%4")
                   .arg(heldStateName(h.state), h.stateBy, h.stateAt.toString(Qt::ISODate),
                        h.stateDetail.isEmpty() ? QString() : QStringLiteral(": ") + h.stateDetail);
    return d;
}

// Settles the claimed entry and says so; a settle that fails is told, never dropped.
HeldDecision settle(HeldActionStore &held, const HeldAction &h, Outcome outcome, HeldState to,
                    const QString &detail, const Actor &approver)
{
    HeldDecision d;
    d.id = h.id;
    d.outcome = outcome;
    d.detail = detail;
    const auto settled = held.settleApproved(h.id, to, detail, approver);
    if (!settled)
        d.detail += QStringLiteral(" (and the held action could not be updated: %1)")
                        .arg(settled.error().message);
    d.current = h;
    d.current->state = to;
    d.current->stateDetail = detail;
    return d;
}

// What running it did, as the entry's new state.
HeldDecision settleRun(HeldActionStore &held, const HeldAction &h, const ApprovedRun &run,
                       const Actor &approver)
{
    const Action &a = run.action;
    const QString detail =
        a.resultDetail.isEmpty()
            ? actionResultName(a.result)
            : QStringLiteral("%1: %2").arg(actionResultName(a.result), a.resultDetail);
    HeldDecision d = [&] {
        if (a.result == ActionResult::Applied)
            return settle(held, h, Outcome::Executed, HeldState::Executed, detail, approver);
        const bool movedOn =
            a.result == ActionResult::Stale ||
            (a.result == ActionResult::Dropped && run.fresh && *run.fresh != Verdict::Unknown);
        if (movedOn)
            return settle(held, h, Outcome::Superseded, HeldState::Superseded, detail, approver);
        return settle(held, h, Outcome::HeldAgain, HeldState::Held, detail, approver);
    }();
    d.action = a;
    return d;
}

} // namespace

QString heldOutcomeName(HeldDecision::Outcome o)
{
    switch (o) {
    case Outcome::Executed:
        return QStringLiteral("executed");
    case Outcome::Superseded:
        return QStringLiteral("superseded");
    case Outcome::HeldAgain:
        return QStringLiteral("held-again");
    case Outcome::Rejected:
        return QStringLiteral("rejected");
    case Outcome::AlreadyTaken:
        return QStringLiteral("already-taken");
    case Outcome::NoSuchAction:
        return QStringLiteral("no-such-action");
    case Outcome::StoreFailed:
        return QStringLiteral("store-failed");
    }
    return {};
}

HeldDecision approveHeldAction(const ApprovedRecheckPorts &p, HeldActionStore &held, qint64 id,
                               const Actor &approver)
{
    const auto claim = held.claimHeld(id, approver);
    if (!claim)
        return HeldDecision{id, Outcome::StoreFailed, claim.error().message, {}, {}};
    if (!claim->claimed)
        return notTaken(id, *claim);
    const HeldAction &h = *claim->current;
    const DomainConfig *domain = p.config.domain(h.action.domain);
    if (!domain)
        return settle(held, h, Outcome::Superseded, HeldState::Superseded,
                      QStringLiteral("domain %1 is no longer configured").arg(h.action.domain),
                      approver);
    if (!p.store)
        return settle(held, h, Outcome::HeldAgain, HeldState::Held, p.storeError, approver);
    // The row as it is now: the precondition every write is conditional on.
    const auto row = p.store->readRow(*domain, h.action.rowId);
    if (!row)
        return settle(held, h, Outcome::HeldAgain, HeldState::Held,
                      QStringLiteral("could not read the row: %1").arg(row.error().message),
                      approver);
    if (!row->has_value())
        return settle(held, h, Outcome::Superseded, HeldState::Superseded,
                      QStringLiteral("row %1 no longer exists").arg(h.action.rowId), approver);
    const Candidate &now = **row;
    if (now.status != h.action.precondition.status ||
        now.updatedAtText != h.action.precondition.updatedAtText)
        return settle(held, h, Outcome::Superseded, HeldState::Superseded,
                      QStringLiteral("the row moved on: now %1, updatedAt %2 (held when %3, %4)")
                          .arg(now.status, now.updatedAtText, h.action.precondition.status,
                               h.action.precondition.updatedAtText),
                      approver);
    // The plan as it would be now: payload rebuilt, budget and rejections read again.
    CandidateVerdict absent;
    absent.candidate = now;
    absent.verdict = Verdict::Absent;
    const QList<Action> planned = planActions(*domain, {absent}, *p.store, 0);
    Action action = planned.first();
    if (action.result == ActionResult::Rejected)
        return settle(held, h, Outcome::Rejected, HeldState::Rejected, action.resultDetail,
                      approver);
    if (action.result != ActionResult::Pending)
        return settle(held, h, Outcome::HeldAgain, HeldState::Held,
                      QStringLiteral("could not plan it again: %1").arg(action.resultDetail),
                      approver);
    if (action.kind != h.action.kind)
        return settle(
            held, h, Outcome::Superseded, HeldState::Superseded,
            QStringLiteral("planned now as %1, not the %2 that was approved (%3); the "
                           "next run holds it anew")
                .arg(actionKindName(action.kind), actionKindName(h.action.kind), action.reason),
            approver);
    // Approved: neither its policy nor the guard holds it any more.
    action.heldReason.clear();
    action.resultDetail.clear();
    action.heldId = h.id;
    return settleRun(held, h, runApprovedRecheck(p, action, now, approver), approver);
}

HeldDecision rejectHeldAction(JobStore &store, HeldActionStore &held, qint64 id, const Actor &by,
                              const QString &reason)
{
    const auto claim = held.rejectHeld(id, by, reason);
    if (!claim)
        return HeldDecision{id, Outcome::StoreFailed, claim.error().message, {}, {}};
    if (!claim->claimed)
        return notTaken(id, *claim);
    HeldDecision d;
    d.id = id;
    d.current = claim->current;
    d.outcome = Outcome::Rejected;
    d.detail = claim->current->stateDetail;
    // The rejection the planner reads: not offered again while the row is unchanged.
    const auto recorded = store.recordRejection(claim->current->action, by);
    if (!recorded)
        d.detail += QStringLiteral(" (the rejection could not be recorded for the planner: %1; "
                                   "the next run may hold it again)")
                        .arg(recorded.error().message);
    return d;
}

} // namespace reclaim
