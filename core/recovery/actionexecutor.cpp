#include "recovery/actionexecutor.h"

#include <QDateTime>
#include <memory>
#include <optional>

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

// One batch on its way through the stages of executeBatches().
struct BatchInFlight
{
    const DomainConfig *domain = nullptr;
    QList<Action *> actions;
    QList<Action *> requeues;
    std::unique_ptr<PendingEnqueue> enqueues; // sent, answers not read yet
    QList<Action *> toWrite;                  // FAIL actions, then the requeues enqueued
    QList<const Action *> audit;              // not written: the audit row says why
    bool settled = false;                     // every result is set and on record
};

// Stage 1: the lease confirmed, every attempt recorded (its audit row, and a requeue's use of
// the retry budget) before anything is tried, and the requeues' enqueues sent.
void startBatch(BatchInFlight &b, JobStore &store, QueueWriter &writer, LockLease &lease,
                const Actor &actor)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (Action *a : b.actions)
        a->executedAt = now;
    if (!lease.confirm()) {
        for (Action *a : b.actions) {
            a->result = ActionResult::LockLost;
            a->resultDetail = lease.lostReason();
        }
        b.settled = true;
        return; // no audit either: auditing is a write, and we may no longer write
    }
    // Every attempt is on record before anything is tried: PostgreSQL may fail after the
    // enqueues.
    auto intents =
        store.recordIntents(QList<const Action *>(b.actions.cbegin(), b.actions.cend()), actor);
    if (!intents) {
        for (Action *a : b.actions) {
            a->result = ActionResult::Error;
            a->resultDetail = QStringLiteral("not attempted: recording the attempt failed: %1")
                                  .arg(intents.error().message);
        }
        b.settled = true;
        return;
    }
    for (qsizetype i = 0; i < b.actions.size(); ++i)
        b.actions.at(i)->auditId = intents->at(i);

    QList<EnqueueRequest> requests;
    const qint64 nowMs = now.toMSecsSinceEpoch();
    for (Action *a : b.actions) {
        if (a->kind == ActionKind::Requeue) {
            b.requeues << a;
            requests << requestFor(*b.domain, *a, lease.generation(), nowMs);
        } else {
            b.toWrite << a;
        }
    }
    if (!requests.isEmpty())
        b.enqueues = writer.startEnqueue(requests);
}

// Stage 2: the enqueues' answers, each on its action, and the lease confirmed again (renewed
// if due): the enqueues may have taken long enough for it to lapse. What was enqueued stays
// enqueued; a lease lost here is found by writeBatch(), which then writes nothing.
void finishEnqueues(BatchInFlight &b, LockLease &lease)
{
    if (b.settled || !b.enqueues)
        return;
    const auto outcomes = b.enqueues->finish();
    b.enqueues.reset();
    QList<Action *> enqueued;
    for (qsizetype i = 0; i < b.requeues.size(); ++i)
        if (takeEnqueueOutcome(*b.requeues.at(i), outcomes.at(i), lease.generation(), b.audit))
            enqueued << b.requeues.at(i);
    if (!enqueued.isEmpty())
        (void)lease.confirm();
    b.toWrite << enqueued;
}

// Stage 3: the rows of what was enqueued (and every FAIL) written in one transaction, each on
// its own condition, then what was not written audited with why. Runs while the next batch's
// enqueues are in flight, so the lease is confirmed without a call to Redis: one found lost,
// or whose TTL ran out since it was last confirmed (a process frozen), writes nothing.
void writeBatch(BatchInFlight &b, JobStore &store, LockLease &lease, const Actor &actor)
{
    if (b.settled)
        return;
    b.settled = true;
    if (!b.toWrite.isEmpty() && !lease.confirmWithoutRenewing()) {
        for (Action *a : b.toWrite) {
            a->result = ActionResult::LockLost;
            note(*a, a->kind == ActionKind::Requeue
                         ? lease.lostReason() + QStringLiteral(" (after the enqueue)")
                         : lease.lostReason());
            b.audit << a;
        }
        b.toWrite.clear();
    }
    if (!b.toWrite.isEmpty()) {
        const auto written = store.applyActions(
            *b.domain, QList<const Action *>(b.toWrite.cbegin(), b.toWrite.cend()), actor);
        for (qsizetype i = 0; i < b.toWrite.size(); ++i)
            takeWriteOutcome(*b.toWrite.at(i), written.at(i), b.audit);
    }
    store.auditOnlyMany(b.audit, actor);
}

} // namespace

void executeBatches(const QList<ExecuteBatch> &batches, JobStore &store, QueueWriter &writer,
                    LockLease &lease, const Actor &actor,
                    const std::function<bool(qsizetype)> &before)
{
    // Batch k's enqueues are sent, then batch k-1's rows written while Redis runs them, then
    // their answers read: PostgreSQL and Redis work at the same time instead of in turn. Every
    // guarantee of one batch holds as executeBatch() gives it: attempts recorded before the
    // enqueues are sent, the lease confirmed after them, rows written only for what was
    // enqueued.
    std::optional<BatchInFlight> previous;
    for (qsizetype i = 0; i < batches.size(); ++i) {
        if (batches.at(i).actions.isEmpty())
            continue;
        if (before && !before(i))
            break;
        BatchInFlight current;
        current.domain = batches.at(i).domain;
        current.actions = batches.at(i).actions;
        startBatch(current, store, writer, lease, actor);
        if (previous) {
            writeBatch(*previous, store, lease, actor);
            previous.reset();
        }
        finishEnqueues(current, lease);
        previous = std::move(current);
    }
    if (previous)
        writeBatch(*previous, store, lease, actor);
}

void executeBatch(const DomainConfig &domain, const QList<Action *> &batch, JobStore &store,
                  QueueWriter &writer, LockLease &lease, const Actor &actor)
{
    executeBatches({ExecuteBatch{&domain, batch}}, store, writer, lease, actor);
}

void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor)
{
    executeBatch(domain, {&action}, store, writer, lease, actor);
}

} // namespace reclaim
