#include "recovery/actionexecutor.h"

#include <QDateTime>

namespace reclaim {

namespace {
// Adds one clause to the action's detail, "; "-separated, never leaving a dangling separator.
void note(Action &action, const QString &text)
{
    if (!action.resultDetail.isEmpty())
        action.resultDetail += QStringLiteral("; ");
    action.resultDetail += text;
}
} // namespace

void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor)
{
    action.executedAt = QDateTime::currentDateTimeUtc();
    if (!lease.confirm()) {
        action.result = ActionResult::LockLost;
        action.resultDetail = lease.lostReason();
        return; // no audit either: auditing is a write, and we may no longer write
    }
    // The attempt is on record before anything is tried: PostgreSQL may fail after the enqueue.
    auto intent = store.recordIntent(action, actor);
    if (!intent) {
        action.result = ActionResult::Error;
        action.resultDetail = QStringLiteral("not attempted: recording the attempt failed: %1")
                                  .arg(intent.error().message);
        return;
    }
    action.auditId = *intent;
    if (action.kind == ActionKind::Requeue) {
        EnqueueRequest request;
        request.job = JobRef{domain.keyPrefix, action.queue, action.jobId};
        request.name = action.jobName;
        request.data = action.payload;
        request.timestampMs = QDateTime::currentMSecsSinceEpoch();
        request.generation = lease.generation();
        request.familyIfUnstamped = domain.bullmqIfUnstamped;
        request.options = action.jobOptions;
        auto enqueued = writer.enqueue(request);
        if (!enqueued) {
            action.result = ActionResult::EnqueueFailed;
            action.resultDetail = enqueued.error().describe();
            store.auditOnly(action, actor);
            return;
        }
        if (enqueued->fenced) {
            // Nothing was written to the queue, and a newer run owns the writes now: no audit
            // either, as for a lost lease.
            action.result = ActionResult::Fenced;
            action.resultDetail = QStringLiteral("nothing enqueued: generation %1 is no longer "
                                                 "current in Redis (it holds %2)")
                                      .arg(lease.generation())
                                      .arg(enqueued->currentGeneration);
            return;
        }
        if (!enqueued->enqueued) {
            action.result = ActionResult::Dropped;
            action.resultDetail = QStringLiteral("job %1 is already runnable (%2) in %3")
                                      .arg(action.jobId, enqueued->runnableState, action.queue);
            store.auditOnly(action, actor);
            return;
        }
        if (!enqueued->assumedLayout.isEmpty())
            note(action, QStringLiteral("written as %1").arg(enqueued->assumedLayout));
        if (!enqueued->replacedState.isEmpty())
            note(action, QStringLiteral("replaced a retained %1 job under %2")
                             .arg(enqueued->replacedState, action.jobId));
        // The enqueue may have taken long enough for the lease to lapse: check again.
        if (!lease.confirm()) {
            action.result = ActionResult::LockLost;
            note(action, lease.lostReason() + QStringLiteral(" (after the enqueue)"));
            store.auditOnly(action, actor); // the job was enqueued: its audit row says so
            return;
        }
    }
    auto written = store.applyAction(domain, action, actor);
    if (!written) {
        action.result = ActionResult::Error;
        note(action,
             action.kind == ActionKind::Requeue
                 ? QStringLiteral("enqueued, row write failed: %1").arg(written.error().message)
                 : QStringLiteral("row write failed: %1").arg(written.error().message));
        store.auditOnly(action, actor);
        return;
    }
    action.result = written->result;
    action.parent = written->parent;
    if (written->result == ActionResult::Stale)
        note(action, QStringLiteral("0 rows: the row moved on after it was read"));
    else if (written->result == ActionResult::Fenced)
        note(action, QStringLiteral("a newer run (generation above %1) has started")
                         .arg(action.precondition.generation));
    else if (written->parent.attempted && written->parent.rows == 0)
        note(action, QStringLiteral("parent %1.%2 was no longer in progress: left alone")
                         .arg(written->parent.table, written->parent.column));
}

} // namespace reclaim
