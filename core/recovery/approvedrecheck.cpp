#include "recovery/approvedrecheck.h"

#include "fencing/locklease.h"
#include "recovery/actionexecutor.h"
#include "recovery/directlookup.h"

#include <QUuid>

namespace reclaim {

ApprovedRun runApprovedRecheck(const ApprovedRecheckPorts &p, Action action,
                               const Candidate &candidate, const Actor &approver)
{
    Actor actor = approver;
    if (actor.runId.isEmpty())
        actor.runId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    action.executedAt = QDateTime::currentDateTimeUtc();
    const DomainConfig *domain = p.config.domain(action.domain);
    if (!domain || !p.store) {
        action.result = ActionResult::Dropped;
        action.resultDetail =
            !p.store ? p.storeError
                     : QStringLiteral("domain %1 is no longer configured").arg(action.domain);
        return {action, std::nullopt};
    }
    LockLease lease(p.lock, static_cast<qint64>(p.config.run.lockTtl.count()) * 1000);
    const auto floor = p.store->fenceGeneration();
    auto attempt = lease.acquire(floor ? *floor : 0);
    if (!attempt || !attempt->acquired) {
        action.result = ActionResult::Dropped;
        action.resultDetail =
            !attempt ? QStringLiteral("could not take the lock: %1").arg(attempt.error().describe())
                     : QStringLiteral("lock held by %1").arg(attempt->holder);
        return {action, std::nullopt};
    }
    auto started = p.store->startGeneration(lease.generation());
    std::optional<Verdict> fresh;
    if (!started || !*started) {
        action.result = ActionResult::Fenced;
        action.resultDetail =
            !started ? started.error().message : QStringLiteral("a newer run has started");
    } else {
        const auto looked = lookUpDirectly(*domain, {candidate}, p.inspector);
        const CandidateVerdict &v = looked.first();
        fresh = v.verdict;
        if (v.verdict != Verdict::Absent) {
            action.result = ActionResult::Dropped;
            action.resultDetail = QStringLiteral("re-checked before running: %1 (%2)")
                                      .arg(verdictName(v.verdict), v.summary());
            p.store->auditOnly(action, actor);
        } else {
            action.precondition.generation = lease.generation();
            executeAction(*domain, action, *p.store, p.writer, lease, actor);
        }
    }
    lease.release();
    return {action, fresh};
}

} // namespace reclaim
