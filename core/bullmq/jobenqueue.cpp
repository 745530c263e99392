#include "bullmq/jobenqueue.h"

#include "bullmq/bullmqkeys.h"
#include "bullmq/bullmqlayout.h"
#include "bullmq/bullmqscripts.h"

#include <QHash>
#include <optional>

namespace reclaim::bullmq {

namespace {

QByteArray key(const JobRef &job, const char *name)
{
    return queueKey(job.keyPrefix, job.queue, QLatin1String(name));
}

QString queueOf(const JobRef &job)
{
    return job.keyPrefix + QLatin1Char(':') + job.queue;
}

// enqueue.lua's KEYS for a job of the queue, its own hash (13) left for the job to fill in:
// built once per queue and shared by every command of the batch.
QList<QByteArray> queueKeys(const JobRef &job, const QByteArray &generationKey)
{
    return {key(job, "wait"),    key(job, "paused"),      key(job, "meta"),
            key(job, "id"),      key(job, "completed"),   key(job, "failed"),
            key(job, "delayed"), key(job, "prioritized"), key(job, "waiting-children"),
            key(job, "active"),  key(job, "events"),      key(job, "marker"),
            QByteArray(),        generationKey,           key(job, "pc")};
}

RedisCommand enqueueCommand(const EnqueueRequest &request, const BullmqLayout &layout,
                            QList<QByteArray> keys)
{
    const JobRef &job = request.job;
    keys[12] = queueKey(job.keyPrefix, job.queue, job.jobId);
    return scripts::enqueue().evalsha(
        keys, {job.jobId.toUtf8(), request.name.toUtf8(), request.data,
               QByteArray::number(request.timestampMs), QByteArray::number(request.generation),
               layout.familyTag().toUtf8(), layout.version.toUtf8(), request.options});
}

EnqueueResult outcomeOf(const RedisResult &r, const EnqueueRequest &request,
                        const BullmqLayout &layout)
{
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 2)
        return unexpected(RedisError::unexpectedReply(QStringLiteral("enqueue")));
    EnqueueOutcome out;
    const QString what = r->elements.at(0).toText();
    if (what == QLatin1String("enqueued") && r->elements.size() == 3) {
        out.enqueued = true;
        out.replacedState = r->elements.at(1).toText();
        out.options = r->elements.at(2).toBytes().value_or(QByteArray());
        if (layout.assumed)
            out.assumedLayout = layout.describe();
    } else if (what == QLatin1String("layout-changed")) {
        return unexpected(RedisError{
            RedisError::Kind::Layout,
            QStringLiteral("queue %1: its BullMQ version changed from '%2' to '%3' just before "
                           "the requeue; nothing written")
                .arg(request.job.queue, layout.version, r->elements.at(1).toText())});
    } else if (what == QLatin1String("fenced")) {
        out.fenced = true;
        out.currentGeneration = r->elements.at(1).toText().toLongLong();
    } else if (what == QLatin1String("runnable")) {
        out.runnableState = r->elements.at(1).toText();
    } else {
        return unexpected(RedisError::unexpectedReply(QStringLiteral("enqueue")));
    }
    return out;
}

// A read that failed sent no write: whatever its kind, nothing was enqueued.
RedisError notEnqueued(const RedisError &readError)
{
    if (readError.kind != RedisError::Kind::Unanswered)
        return readError;
    return RedisError{RedisError::Kind::Io,
                      QStringLiteral("nothing enqueued: %1").arg(readError.message)};
}

} // namespace

QList<EnqueueResult> enqueueJobs(RedisChannel &conn, const FenceKeys &fence,
                                 const QList<EnqueueRequest> &requests)
{
    EnqueueInFlight inFlight = startEnqueueJobs(conn, fence, requests);
    return finishEnqueueJobs(conn, inFlight);
}

EnqueueInFlight startEnqueueJobs(RedisChannel &conn, const FenceKeys &fence,
                                 const QList<EnqueueRequest> &requests)
{
    EnqueueInFlight f;
    f.requests = requests;
    if (requests.isEmpty())
        return f;
    // Which release laid each queue out decides what its add writes: an unknown (newer) one, or
    // a queue no BullMQ Queue has stamped (unless its domain says which major to assume), is
    // refused rather than guessed. The script checks the stamp is still the same when it
    // writes: a Queue that stamps another version in between makes it refuse.
    QHash<QString, qsizetype> stampOf;
    QList<RedisCommand> stampReads;
    for (const EnqueueRequest &r : requests) {
        const QString q = queueOf(r.job);
        if (stampOf.contains(q))
            continue;
        stampOf.insert(q, stampReads.size());
        stampReads << RedisCommand{QByteArrayLiteral("HGET"), key(r.job, "meta"),
                                   QByteArrayLiteral("version")};
    }
    const QList<RedisResult> stamps = conn.exchange(stampReads);

    QList<std::optional<RedisError>> refused(requests.size());
    QList<BullmqLayout> layouts(requests.size());
    QHash<QString, QList<QByteArray>> keysOf;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        const EnqueueRequest &r = requests.at(i);
        const QString queue = queueOf(r.job);
        const RedisResult &stamp = stamps.at(stampOf.value(queue));
        if (!stamp) {
            refused[i] = notEnqueued(stamp.error());
            continue;
        }
        layouts[i] = BullmqLayout::forWriting(stamp->toText(), r.familyIfUnstamped);
        if (!layouts.at(i).writable()) {
            refused[i] = RedisError{RedisError::Kind::Layout, layouts.at(i).refusal(r.job.queue)};
            continue;
        }
        auto keys = keysOf.find(queue);
        if (keys == keysOf.end())
            keys = keysOf.insert(queue,
                                 queueKeys(r.job, fence.forQueue(r.job.keyPrefix, r.job.queue)));
        f.writes << enqueueCommand(r, layouts.at(i), *keys);
    }
    f.refused = std::move(refused);
    f.layouts = std::move(layouts);
    if (!f.writes.isEmpty())
        f.sent = scripts::enqueue().sendEach(conn, f.writes);
    return f;
}

QList<EnqueueResult> finishEnqueueJobs(RedisChannel &conn, EnqueueInFlight &inFlight)
{
    QList<RedisResult> replies;
    if (!inFlight.writes.isEmpty())
        replies = scripts::enqueue().receiveEach(conn, inFlight.writes, inFlight.sent);
    QList<EnqueueResult> out;
    out.reserve(inFlight.requests.size());
    qsizetype w = 0; // the writes went out in request order, one per request not refused
    for (qsizetype i = 0; i < inFlight.requests.size(); ++i) {
        if (const auto &refusal = inFlight.refused.at(i))
            out << unexpected(*refusal);
        else
            out << outcomeOf(replies.at(w++), inFlight.requests.at(i), inFlight.layouts.at(i));
    }
    return out;
}

} // namespace reclaim::bullmq
