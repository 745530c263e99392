#include "recovery/heldapproval.h"

#include "fencing/locklease.h"
#include "recovery/actionexecutor.h"
#include "recovery/directlookup.h"
#include "recovery/planner.h"

#include <QUuid>

namespace reclaim {

namespace {

using Outcome = HeldDecision::Outcome;

// Ids claimed, read, planned and looked up per step of a mass approval. A step's own statements
// (claim, read, plan, settle) are paid once per step, so a step is the size of a plan read
// (kPlanBatch, planner.cpp), not of an execute batch: at 1,000 they were half the approval's
// PostgreSQL round trips. The operator still sees decisions arrive as it goes, a step at a time.
constexpr qsizetype kApprovalSlice = 5000;

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

// One approval of many held actions: one lock and generation for all of them (taken when the
// first needs it, released at the end), every step in sets, every action its own decision.
class MassApproval
{
public:
    MassApproval(const ApprovedRecheckPorts &ports, HeldActionStore &held, const Actor &approver)
        : m_p(ports), m_held(held), m_approver(approver),
          m_lease(ports.lock, static_cast<qint64>(ports.config.run.lockTtl.count()) * 1000)
    {
        if (m_approver.runId.isEmpty())
            m_approver.runId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    }
    ~MassApproval()
    {
        if (m_lease.held())
            m_lease.release();
    }
    Q_DISABLE_COPY_MOVE(MassApproval)

    // The decisions on `ids`, in their order: claimed, checked again and run, then settled.
    QList<HeldDecision> decide(const QList<qint64> &ids);

private:
    // A claimed entry on its way to a decision.
    struct Claimed
    {
        qsizetype at; // its place in the slice's decisions
        HeldAction held;
        Candidate now;
        Action action;
    };

    void settle(const HeldAction &h, qsizetype at, Outcome outcome, HeldState to,
                const QString &detail);
    void settleRun(const Claimed &c, const std::optional<Verdict> &fresh);
    void decideDomain(const QString &name, QList<std::pair<qsizetype, HeldAction>> claimed);
    void runUnderLock(const DomainConfig &domain, QList<Claimed> &ready);
    // The lock and its generation, taken once; empty, or why it could not be had.
    QString takeLock();

    const ApprovedRecheckPorts &m_p;
    HeldActionStore &m_held;
    Actor m_approver;
    LockLease m_lease;
    bool m_lockTried = false;
    QString m_lockRefusal;
    bool m_fenced = false;
    QList<HeldDecision> m_out;   // the slice's decisions
    QList<HeldSettle> m_settles; // the slice's entries to settle, in one statement
};

void MassApproval::settle(const HeldAction &h, qsizetype at, Outcome outcome, HeldState to,
                          const QString &detail)
{
    HeldDecision &d = m_out[at];
    d.id = h.id;
    d.outcome = outcome;
    d.detail = detail;
    d.current = h;
    d.current->state = to;
    d.current->stateDetail = detail;
    m_settles << HeldSettle{h.id, to, detail};
}

// What running it did, as the entry's new state.
void MassApproval::settleRun(const Claimed &c, const std::optional<Verdict> &fresh)
{
    const Action &a = c.action;
    const QString detail =
        a.resultDetail.isEmpty()
            ? actionResultName(a.result)
            : QStringLiteral("%1: %2").arg(actionResultName(a.result), a.resultDetail);
    if (a.result == ActionResult::Applied)
        settle(c.held, c.at, Outcome::Executed, HeldState::Executed, detail);
    else if (a.result == ActionResult::Stale ||
             (a.result == ActionResult::Dropped && fresh && *fresh != Verdict::Unknown))
        settle(c.held, c.at, Outcome::Superseded, HeldState::Superseded, detail);
    else
        settle(c.held, c.at, Outcome::HeldAgain, HeldState::Held, detail);
    m_out[c.at].action = a;
}

QString MassApproval::takeLock()
{
    if (m_lockTried)
        return m_lockRefusal;
    m_lockTried = true;
    const auto floor = m_p.store->fenceGeneration();
    const auto attempt = m_lease.acquire(floor ? *floor : 0);
    if (!attempt)
        m_lockRefusal =
            QStringLiteral("could not take the lock: %1").arg(attempt.error().describe());
    else if (!attempt->acquired)
        m_lockRefusal = QStringLiteral("lock held by %1").arg(attempt->holder);
    else if (const auto started = m_p.store->startGeneration(m_lease.generation());
             !started || !*started) {
        m_fenced = true;
        m_lockRefusal =
            !started ? started.error().message : QStringLiteral("a newer run has started");
    }
    return m_lockRefusal;
}

QList<HeldDecision> MassApproval::decide(const QList<qint64> &ids)
{
    m_out = QList<HeldDecision>(ids.size());
    m_settles.clear();
    auto claims = m_held.claimHeldMany(ids, m_approver);
    if (!claims) {
        for (qsizetype i = 0; i < ids.size(); ++i)
            m_out[i] =
                HeldDecision{ids.at(i), Outcome::StoreFailed, claims.error().message, {}, {}};
        return m_out;
    }
    // By domain, in the order they were named.
    QStringList domains;
    QHash<QString, QList<std::pair<qsizetype, HeldAction>>> byDomain;
    for (qsizetype i = 0; i < ids.size(); ++i) {
        HeldClaim &claim = (*claims)[i];
        if (!claim.claimed || !claim.current) {
            m_out[i] = notTaken(ids.at(i), claim);
            continue;
        }
        const QString name = claim.current->action.domain;
        if (!byDomain.contains(name))
            domains << name;
        byDomain[name].append({i, std::move(*claim.current)});
    }
    for (const QString &name : domains)
        decideDomain(name, byDomain.take(name));
    if (!m_settles.isEmpty()) {
        const auto settled = m_held.settleApprovedMany(m_settles, m_approver);
        if (!settled) {
            QSet<qint64> unsettled;
            for (const HeldSettle &s : m_settles)
                unsettled.insert(s.id);
            for (HeldDecision &d : m_out)
                if (d.outcome != Outcome::AlreadyTaken && unsettled.contains(d.id))
                    d.detail += QStringLiteral(" (and the held action could not be updated: %1)")
                                    .arg(settled.error().message);
        }
    }
    // Whatever the audit could not record when it happened is recorded now, or told with the
    // step's last decision: the store does not outlive the approval.
    if (m_p.store && !m_out.isEmpty())
        for (const QString &left : m_p.store->finishAudits())
            m_out.last().detail += QStringLiteral("; ") + left;
    return m_out;
}

void MassApproval::decideDomain(const QString &name,
                                QList<std::pair<qsizetype, HeldAction>> claimed)
{
    const DomainConfig *domain = m_p.config.domain(name);
    if (!domain || !m_p.store) {
        for (const auto &[at, h] : claimed)
            if (!domain)
                settle(h, at, Outcome::Superseded, HeldState::Superseded,
                       QStringLiteral("domain %1 is no longer configured").arg(name));
            else
                settle(h, at, Outcome::HeldAgain, HeldState::Held, m_p.storeError);
        return;
    }
    // The rows as they are now: the precondition every write is conditional on.
    QStringList rowIds;
    for (const auto &[at, h] : claimed)
        rowIds << h.action.rowId;
    const auto rows = m_p.store->readRows(*domain, rowIds);
    if (!rows) {
        for (const auto &[at, h] : claimed)
            settle(h, at, Outcome::HeldAgain, HeldState::Held,
                   QStringLiteral("could not read the row: %1").arg(rows.error().message));
        return;
    }
    QList<Claimed> unchanged;
    QList<CandidateVerdict> absent;
    unchanged.reserve(claimed.size()); // an Action each: grown once, not moved again and again
    absent.reserve(claimed.size());
    for (auto &[at, h] : claimed) {
        const auto row = rows->constFind(h.action.rowId);
        if (row == rows->cend()) {
            settle(h, at, Outcome::Superseded, HeldState::Superseded,
                   QStringLiteral("row %1 no longer exists").arg(h.action.rowId));
            continue;
        }
        // Copied, not moved: an id named twice finds its row twice (a row read without its
        // JSON is a few shared strings).
        const Candidate &now = *row;
        if (now.status != h.action.precondition.status ||
            now.updatedAtText != h.action.precondition.updatedAtText) {
            settle(h, at, Outcome::Superseded, HeldState::Superseded,
                   QStringLiteral("the row moved on: now %1, updatedAt %2 (held when %3, %4)")
                       .arg(now.status, now.updatedAtText, h.action.precondition.status,
                            h.action.precondition.updatedAtText));
            continue;
        }
        CandidateVerdict v;
        v.candidate = now;
        unchanged << Claimed{at, std::move(h), now, {}};
        v.verdict = Verdict::Absent;
        absent << v;
    }
    if (unchanged.isEmpty())
        return;
    // The plan as it would be now: payloads rebuilt, budgets and rejections read again, in sets.
    QList<Action> planned = planActions(*domain, absent, *m_p.store, 0);
    absent.clear();
    QList<Claimed> ready;
    ready.reserve(unchanged.size());
    for (qsizetype i = 0; i < unchanged.size(); ++i) {
        Claimed &c = unchanged[i];
        Action action = std::move(planned[i]);
        const HeldAction &h = c.held;
        if (action.result == ActionResult::Rejected)
            settle(h, c.at, Outcome::Rejected, HeldState::Rejected, action.resultDetail);
        else if (action.result != ActionResult::Pending)
            settle(h, c.at, Outcome::HeldAgain, HeldState::Held,
                   QStringLiteral("could not plan it again: %1").arg(action.resultDetail));
        else if (action.kind != h.action.kind)
            settle(h, c.at, Outcome::Superseded, HeldState::Superseded,
                   QStringLiteral("planned now as %1, not the %2 that was approved (%3); the "
                                  "next run holds it anew")
                       .arg(actionKindName(action.kind), actionKindName(h.action.kind),
                            action.reason));
        else {
            // Approved: neither its policy nor the guard holds it any more.
            action.heldReason.clear();
            action.resultDetail.clear();
            action.heldId = h.id;
            c.action = std::move(action);
            ready << std::move(c);
        }
    }
    if (!ready.isEmpty())
        runUnderLock(*domain, ready);
}

// Under the lock and its generation: each looked up again (runnable → superseded, could not
// look → held again) and the rest executed in batches, as a run executes.
void MassApproval::runUnderLock(const DomainConfig &domain, QList<Claimed> &ready)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (const QString refused = takeLock(); !refused.isEmpty()) {
        for (Claimed &c : ready) {
            c.action.executedAt = now;
            c.action.result = m_fenced ? ActionResult::Fenced : ActionResult::Dropped;
            c.action.resultDetail = refused;
            settleRun(c, std::nullopt);
        }
        return;
    }
    QList<Candidate> candidates;
    candidates.reserve(ready.size());
    for (const Claimed &c : ready)
        candidates << c.now;
    const QList<CandidateVerdict> looked = lookUpDirectly(domain, candidates, m_p.inspector);
    candidates.clear();
    QList<Action *> toRun;
    QList<const Action *> dropped;
    for (qsizetype i = 0; i < ready.size(); ++i) {
        Action &a = ready[i].action;
        a.executedAt = now;
        const CandidateVerdict &v = looked.at(i);
        if (v.verdict != Verdict::Absent) {
            a.result = ActionResult::Dropped;
            a.resultDetail = QStringLiteral("re-checked before running: %1 (%2)")
                                 .arg(verdictName(v.verdict), v.summary());
            dropped << &a;
        } else {
            a.precondition.generation = m_lease.generation();
            toRun << &a;
        }
    }
    m_p.store->auditOnlyMany(dropped, m_approver);
    QList<ExecuteBatch> batches;
    for (qsizetype at = 0; at < toRun.size(); at += kExecuteBatch)
        batches << ExecuteBatch{&domain, toRun.mid(at, kExecuteBatch)};
    executeBatches(batches, *m_p.store, m_p.writer, m_lease, m_approver);
    for (qsizetype i = 0; i < ready.size(); ++i)
        settleRun(ready.at(i), looked.at(i).verdict);
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

void approveHeldActions(const ApprovedRecheckPorts &ports, HeldActionStore &held,
                        const QList<qint64> &ids, const Actor &approver,
                        const std::function<void(const HeldDecision &)> &each)
{
    MassApproval approval(ports, held, approver);
    for (qsizetype at = 0; at < ids.size(); at += kApprovalSlice)
        for (const HeldDecision &d : approval.decide(ids.mid(at, kApprovalSlice)))
            each(d);
}

QList<HeldDecision> rejectHeldActions(JobStore &store, HeldActionStore &held,
                                      const QList<qint64> &ids, const Actor &by,
                                      const QString &reason)
{
    QList<HeldDecision> out;
    out.reserve(ids.size());
    for (qsizetype at = 0; at < ids.size(); at += kApprovalSlice) {
        const QList<qint64> slice = ids.mid(at, kApprovalSlice);
        const auto claims = held.rejectHeldMany(slice, by, reason);
        if (!claims) {
            for (qint64 id : slice)
                out << HeldDecision{id, Outcome::StoreFailed, claims.error().message, {}, {}};
            continue;
        }
        // The rejections the planner reads, for those rejected here.
        QList<const Action *> rejected;
        for (const HeldClaim &c : *claims)
            if (c.claimed && c.current)
                rejected << &c.current->action;
        const auto recorded = store.recordRejections(rejected, by);
        for (qsizetype i = 0; i < slice.size(); ++i) {
            const HeldClaim &claim = claims->at(i);
            if (!claim.claimed) {
                out << notTaken(slice.at(i), claim);
                continue;
            }
            HeldDecision d;
            d.id = slice.at(i);
            d.current = claim.current;
            d.outcome = Outcome::Rejected;
            d.detail = claim.current ? claim.current->stateDetail : QString();
            if (!recorded)
                d.detail += QStringLiteral(" (the rejection could not be recorded for the "
                                           "planner: %1; the next run may hold it again)")
                                .arg(recorded.error().message);
            out << d;
        }
    }
    return out;
}

} // namespace reclaim
