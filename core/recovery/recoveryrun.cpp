#include "recovery/recoveryrun.h"

#include "fencing/locklease.h"
#include "recovery/actionexecutor.h"
#include "recovery/approvedrecheck.h"
#include "recovery/blastradiusguard.h"
#include "recovery/directlookup.h"
#include "recovery/domainscan.h"
#include "recovery/heldsync.h"
#include "recovery/leasedinspector.h"
#include "recovery/planner.h"
#include "recovery/runlookup.h"
#include "recovery/scheduledlisting.h"
#include "util/freedmemory.h"

#include <QElapsedTimer>

namespace reclaim {

namespace {

qint64 lap(QElapsedTimer &t)
{
    const qint64 ms = t.elapsed();
    t.restart();
    return ms;
}

} // namespace

RecoveryRun::RecoveryRun(const ReclaimConfig &config, JobStore *store, QString storeError,
                         QueueInspector &inspector, QueueWriter &writer, RecoveryLock &lock)
    : m_config(config), m_store(store), m_storeError(std::move(storeError)), m_inspector(inspector),
      m_writer(writer), m_lock(lock)
{}

void RecoveryRun::report(const RunRequest &r, const QString &phase, int done, int total) const
{
    if (r.progress)
        r.progress->phase(phase, done, total);
}

RunReport RecoveryRun::run(const RunRequest &request)
{
    RunReport rep;
    rep.runId = request.runId.isEmpty() ? RunReport::newRunId() : request.runId;
    rep.trigger = request.trigger;
    rep.dryRun = request.dryRun;
    rep.startedAt = QDateTime::currentDateTimeUtc();
    const qint64 tripsBefore = m_inspector.roundTrips();
    QElapsedTimer phase;
    phase.start();
    auto finish = [&]() -> RunReport {
        rep.finishedAt = QDateTime::currentDateTimeUtc();
        rep.redisRoundTrips = m_inspector.roundTrips() - tripsBefore;
        return rep;
    };

    // Without the job store nothing can be decided; stop before touching Redis at all.
    if (!m_store) {
        rep.outcome = RunReport::Outcome::Failed;
        rep.outcomeDetail = m_storeError;
        return finish();
    }

    // 1. Lock (a dry run writes nothing, not even the lock: it only looks who holds it).
    report(request, QStringLiteral("lock"), 0, 1);
    LockLease lease(m_lock, static_cast<qint64>(m_config.run.lockTtl.count()) * 1000);
    if (request.dryRun) {
        auto seen = m_lock.peek();
        if (seen) {
            rep.lock.token = seen->holder;
            rep.lock.ttlMs = seen->holderTtlMs;
            rep.lock.generation = seen->generation;
        } else {
            // Redis is unreachable: every lookup would be UNKNOWN. Say so as a real run would.
            rep.lock.state = LockReport::State::Unreachable;
            rep.lock.error = seen.error().describe();
            rep.outcome = RunReport::Outcome::SkippedUnreachable;
            rep.outcomeDetail =
                QStringLiteral("could not look at the lock: %1").arg(rep.lock.error);
            rep.phases.lockMs = lap(phase);
            return finish();
        }
    } else {
        // PostgreSQL's fence is the floor of the new generation: after a FLUSHALL or a new Redis
        // the counter restarts low, and every run would be fenced forever. Unreadable: no floor
        // (the start step below then reports the database's error).
        const auto floor = m_store->fenceGeneration();
        auto attempt = lease.acquire(floor ? *floor : 0);
        if (!attempt) {
            rep.lock.state = LockReport::State::Unreachable;
            // An attempt whose answer was lost may have taken the lock: the engine releases
            // this token before its next run (service/engine.h).
            rep.lock.token = lease.token();
            rep.lock.error = attempt.error().describe();
            rep.outcome = RunReport::Outcome::SkippedUnreachable;
            rep.outcomeDetail = QStringLiteral("could not take the lock: %1").arg(rep.lock.error);
            rep.phases.lockMs = lap(phase);
            return finish();
        }
        if (!attempt->acquired) {
            rep.lock.state = LockReport::State::Held;
            rep.lock.token = attempt->holder;
            rep.lock.ttlMs = attempt->holderTtlMs;
            rep.lock.generation = attempt->generation;
            rep.outcome = RunReport::Outcome::SkippedLockHeld;
            rep.outcomeDetail = QStringLiteral("lock held by %1 for another %2 ms")
                                    .arg(attempt->holder)
                                    .arg(attempt->holderTtlMs);
            rep.phases.lockMs = lap(phase);
            return finish();
        }
        rep.lock.state = LockReport::State::Acquired;
        rep.lock.token = lease.token();
        rep.lock.ttlMs = static_cast<qint64>(m_config.run.lockTtl.count()) * 1000;
        rep.lock.generation = lease.generation();
        rep.lock.raisedFrom = attempt->raisedFrom;
        auto started = m_store->startGeneration(lease.generation());
        if (!started || !*started) {
            rep.outcome = RunReport::Outcome::Failed;
            rep.outcomeDetail =
                !started ? started.error().message
                         : QStringLiteral("generation %1 is already fenced by a newer run")
                               .arg(lease.generation());
            auto released = lease.release();
            rep.lock.released = released && *released;
            rep.phases.lockMs = lap(phase);
            return finish();
        }
    }
    rep.phases.lockMs = lap(phase);
    // Every read from here on renews the lock as it goes (leasedinspector.h).
    LeasedInspector inspector(m_inspector, lease);

    // 2. Candidates of every domain, all read before the queue is looked at.
    QList<QList<Candidate>> candidates;
    for (qsizetype i = 0; i < m_config.domains.size(); ++i) {
        report(request, QStringLiteral("candidates"), static_cast<int>(i),
               static_cast<int>(m_config.domains.size()));
        if (lease.held())
            (void)lease.confirm();
        const DomainConfig &d = m_config.domains.at(i);
        DomainReport dr;
        dr.name = d.name;
        auto read = m_store->readCandidates(d, request.rowJson);
        if (!read)
            dr.candidateError = read.error().message;
        candidates << (read ? *read : QList<Candidate>());
        rep.domains << dr;
    }
    releaseFreedMemory(); // what reading the rows took beyond the rows themselves
    rep.phases.candidatesMs = lap(phase);

    // 3. Direct lookups.
    for (qsizetype i = 0; i < m_config.domains.size(); ++i) {
        report(request, QStringLiteral("lookup"), static_cast<int>(i),
               static_cast<int>(m_config.domains.size()));
        lookUpIntoReport(rep.domains[i], m_config.domains.at(i), std::move(candidates[i]),
                         inspector, m_config.run.scheduledListed);
        releaseFreedMemory(); // the healthy candidates let go, the long lists read
    }
    rep.phases.lookupMs = lap(phase);

    // 4. Scan, only domains with a candidate not found runnable.
    for (qsizetype i = 0; i < m_config.domains.size(); ++i) {
        report(request, QStringLiteral("scan"), static_cast<int>(i),
               static_cast<int>(m_config.domains.size()));
        rep.domains[i].scan = scanDomain(m_config.domains.at(i), rep.domains[i].candidates,
                                         inspector, m_config.run.scanPageSize);
        // The queue moved on while it was read: what still looks absent is asked for by id.
        rep.domains[i].scan.rechecked =
            recheckAbsent(m_config.domains.at(i), rep.domains[i].candidates, inspector);
        releaseScheduledDetails(rep.domains[i].candidates);
        listScheduledUpTo(rep.domains[i], m_config.run.scheduledListed);
        releaseFreedMemory(); // the scan's pages
    }
    rep.phases.scanMs = lap(phase);

    // 5. Plan.
    report(request, QStringLiteral("plan"), 0, 1);
    for (qsizetype i = 0; i < m_config.domains.size(); ++i) {
        if (lease.held())
            (void)lease.confirm(); // planning reads PostgreSQL only: renew between domains
        QList<Action> planned =
            planActions(m_config.domains.at(i), rep.domains.at(i).candidates, *m_store,
                        rep.lock.state == LockReport::State::Acquired ? lease.generation() : 0);
        if (rep.actions.isEmpty())
            rep.actions = std::move(planned); // no copy of a large domain's list
        else
            rep.actions.append(std::move(planned));
    }
    // A domain over the blast-radius guard executes nothing: held for an operator.
    holdDomainsOverGuard(m_config, rep, inspector);
    rep.phases.planMs = lap(phase);

    // 6. Execute what its policy lets run on its own (never one held by its policy or the
    // guard), in batches of one domain: a few round trips per batch, not per action, and the
    // lease confirmed between batches, so a lost lease stops at the next boundary.
    Actor actor = request.actor;
    actor.runId = rep.runId;
    if (request.executeActions && !request.dryRun) {
        QList<ExecuteBatch> batches;
        QList<qsizetype> startsAt; // the index in rep.actions each batch starts at
        for (qsizetype next = 0; next < rep.actions.size();) {
            const qsizetype first = next;
            ExecuteBatch batch;
            while (next < rep.actions.size() && batch.actions.size() < kExecuteBatch) {
                Action &a = rep.actions[next];
                if (!batch.actions.isEmpty() && a.domain != batch.actions.first()->domain)
                    break;
                ++next;
                if (a.runsOnItsOwn())
                    batch.actions << &a;
            }
            if (batch.actions.isEmpty())
                continue;
            batch.domain = m_config.domain(batch.actions.first()->domain);
            batches << batch;
            startsAt << first;
        }
        executeBatches(batches, *m_store, m_writer, lease, actor, [&](qsizetype i) {
            if (request.stopRequested && request.stopRequested->load())
                return false;
            report(request, QStringLiteral("execute"), static_cast<int>(startsAt.at(i)),
                   static_cast<int>(rep.actions.size()));
            return true;
        });
    }
    // 6b. Keep what waits for an operator beyond this run, and settle what this run saw move
    // on — only while the lock is ours: a run that lost it saw a queue another run now owns.
    if (!request.dryRun && rep.lock.state == LockReport::State::Acquired) {
        HeldActionStore *held = m_store->heldActionStore();
        if (held && lease.confirm())
            keepHeldActions(*held, rep, actor);
    }
    rep.phases.executeMs = lap(phase);

    // 7. Release: compare-and-delete, so a run that outlived its TTL leaves the next holder alone.
    report(request, QStringLiteral("release"), 0, 1);
    rep.lock.lost = lease.lost();
    if (lease.lost())
        rep.outcomeDetail = QStringLiteral("lock lost during the run: %1").arg(lease.lostReason());
    if (rep.lock.state == LockReport::State::Acquired) {
        auto released = lease.release();
        rep.lock.released = released && *released;
        if (!released)
            rep.lock.error = released.error().describe();
    }
    // 8. Whatever the audit could not record when it happened is recorded now, or reported:
    // the store does not outlive the run.
    if (!request.dryRun)
        rep.auditUnfinished = m_store->finishAudits();
    return finish();
}

Action RecoveryRun::runApproved(Action action, const Candidate &candidate, const Actor &approver)
{
    return runApprovedAction(
        ApprovedRecheckPorts{m_config, m_store, m_storeError, m_inspector, m_writer, m_lock},
        std::move(action), candidate, approver);
}

} // namespace reclaim
