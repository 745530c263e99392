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

EnqueueRequest requestFor(const DomainConfig &domain, const Action &action, qint64 generation,
                          qint64 nowMs)
{
    EnqueueRequest request;
    request.job = JobRef{domain.keyPrefix, action.queue, action.jobId};
    request.name = action.jobName;
    request.data = action.payload;
    request.timestampMs = nowMs;
    request.generation = generation;
    request.familyIfUnstamped = domain.bullmqIfUnstamped;
    request.options = action.jobOptions;
    return request;
}

// What one enqueue answered, on its action. True when the job was enqueued (its row is to be
// written); `audit` collects the actions whose audit row says why not.
bool takeEnqueueOutcome(Action &action, const Expected<EnqueueOutcome, RedisError> &enqueued,
                        qint64 generation, QList<const Action *> &audit)
{
    if (!enqueued) {
        if (enqueued.error().kind == RedisError::Kind::Unanswered) {
            // Sent, never answered: the job may be back in its queue. The row stays as it was
            // (its budget use too); the next run looks the job up and sees which.
            action.result = ActionResult::Unknown;
            action.resultDetail =
                QStringLiteral("not known whether job %1 was enqueued in %2; the row was left "
                               "as it was: %3")
                    .arg(action.jobId, action.queue, enqueued.error().describe());
        } else {
            action.result = ActionResult::EnqueueFailed;
            action.resultDetail = enqueued.error().describe();
        }
        audit << &action;
        return false;
    }
    if (enqueued->fenced) {
        // Nothing was written to the queue, and a newer run owns the jobs' rows now. The attempt
        // recorded before the enqueue is ours, not a job's row: it is finished as fenced, so no
        // audit row is left saying "started" for an action that was refused.
        action.result = ActionResult::Fenced;
        action.resultDetail = QStringLiteral("nothing enqueued: generation %1 is no longer "
                                             "current in Redis (it holds %2)")
                                  .arg(generation)
                                  .arg(enqueued->currentGeneration);
        audit << &action;
        return false;
    }
    if (!enqueued->enqueued) {
        action.result = ActionResult::Dropped;
        action.resultDetail = QStringLiteral("job %1 is already runnable (%2) in %3")
                                  .arg(action.jobId, enqueued->runnableState, action.queue);
        audit << &action;
        return false;
    }
    if (!enqueued->assumedLayout.isEmpty())
        note(action, QStringLiteral("written as %1").arg(enqueued->assumedLayout));
    if (!enqueued->replacedState.isEmpty())
        note(action, QStringLiteral("replaced a retained %1 job under %2")
                         .arg(enqueued->replacedState, action.jobId));
    return true;
}

void takeWriteOutcome(Action &action, const Expected<WriteOutcome, StoreError> &written,
                      QList<const Action *> &audit)
{
    if (!written) {
        action.result = ActionResult::Error;
        note(action,
             action.kind == ActionKind::Requeue
                 ? QStringLiteral("enqueued, row write failed: %1").arg(written.error().message)
                 : QStringLiteral("row write failed: %1").arg(written.error().message));
        audit << &action;
        return;
    }
    action.result = written->result;
    action.parent = written->parent;
    if (!written->note.isEmpty())
        note(action, written->note);
    // Not known whether the transaction committed: its audit row is left to say what it did.
    if (written->result == ActionResult::Unknown)
        return;
    if (written->result == ActionResult::Stale)
        note(action, QStringLiteral("0 rows: the row moved on after it was read"));
    else if (written->result == ActionResult::Fenced)
        note(action, QStringLiteral("a newer run (generation above %1) has started")
                         .arg(action.precondition.generation));
    else if (written->parent.attempted && written->parent.rows == 0)
        note(action, QStringLiteral("parent %1.%2 was no longer in progress: left alone")
                         .arg(written->parent.table, written->parent.column));
}

} // namespace

void executeBatch(const DomainConfig &domain, const QList<Action *> &batch, JobStore &store,
                  QueueWriter &writer, LockLease &lease, const Actor &actor)
{
    if (batch.isEmpty())
        return;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (Action *a : batch)
        a->executedAt = now;
    if (!lease.confirm()) {
        for (Action *a : batch) {
            a->result = ActionResult::LockLost;
            a->resultDetail = lease.lostReason();
        }
        return; // no audit either: auditing is a write, and we may no longer write
    }
    // Every attempt is on record before anything is tried: PostgreSQL may fail after the
    // enqueues.
    auto intents = store.recordIntents(QList<const Action *>(batch.cbegin(), batch.cend()), actor);
    if (!intents) {
        for (Action *a : batch) {
            a->result = ActionResult::Error;
            a->resultDetail = QStringLiteral("not attempted: recording the attempt failed: %1")
                                  .arg(intents.error().message);
        }
        return;
    }
    for (qsizetype i = 0; i < batch.size(); ++i)
        batch.at(i)->auditId = intents->at(i);

    QList<Action *> toWrite;
    QList<const Action *> audit; // not written: the audit row says why
    QList<Action *> requeues;
    QList<EnqueueRequest> requests;
    const qint64 nowMs = now.toMSecsSinceEpoch();
    for (Action *a : batch) {
        if (a->kind == ActionKind::Requeue) {
            requeues << a;
            requests << requestFor(domain, *a, lease.generation(), nowMs);
        } else {
            toWrite << a;
        }
    }
    if (!requests.isEmpty()) {
        const auto outcomes = writer.enqueueMany(requests);
        QList<Action *> enqueued;
        for (qsizetype i = 0; i < requeues.size(); ++i)
            if (takeEnqueueOutcome(*requeues.at(i), outcomes.at(i), lease.generation(), audit))
                enqueued << requeues.at(i);
        // The enqueues may have taken long enough for the lease to lapse: check again. What
        // was enqueued stays enqueued, and its audit row says so; nothing is written.
        if (!enqueued.isEmpty() && !lease.confirm()) {
            for (Action *a : enqueued) {
                a->result = ActionResult::LockLost;
                note(*a, lease.lostReason() + QStringLiteral(" (after the enqueue)"));
                audit << a;
            }
            for (Action *a : toWrite) {
                a->result = ActionResult::LockLost;
                a->resultDetail = lease.lostReason();
                audit << a;
            }
            store.auditOnlyMany(audit, actor);
            return;
        }
        toWrite << enqueued;
    }
    if (!toWrite.isEmpty()) {
        const auto written = store.applyActions(
            domain, QList<const Action *>(toWrite.cbegin(), toWrite.cend()), actor);
        for (qsizetype i = 0; i < toWrite.size(); ++i)
            takeWriteOutcome(*toWrite.at(i), written.at(i), audit);
    }
    store.auditOnlyMany(audit, actor);
}

void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor)
{
    executeBatch(domain, {&action}, store, writer, lease, actor);
}

} // namespace reclaim
