// The requeue's Redis side: rebuilt jobs written into their BullMQ queues, each the add its
// queue's release writes, each fenced on the run's generation by the script (lua/enqueue.lua).
#pragma once

#include "bullmq/bullmqlayout.h"
#include "config/fencekeys.h"
#include "ports/queuewriter.h"
#include "redis/redisconnection.h"

#include <QByteArray>
#include <QList>

namespace reclaim::bullmq {

using EnqueueResult = Expected<EnqueueOutcome, RedisError>;

// Two round trips whatever the batch's size: every queue's layout stamp read in one pipeline,
// then every job's script in another. Each request gets its own answer, in order: a refusal
// (layout unknown or unstamped) is that request's error, and a connection lost halfway leaves
// the replies already read as they were and answers the rest Unanswered (they may have run).
QList<EnqueueResult> enqueueJobs(RedisChannel &conn, const FenceKeys &fence,
                                 const QList<EnqueueRequest> &requests);

// enqueueJobs() in two halves: the stamps read and the scripts sent, then their answers read.
// Between the two, nothing else may use `conn`.
struct EnqueueInFlight
{
    QList<EnqueueRequest> requests;
    QList<std::optional<RedisError>> refused; // per request: why it was not sent
    QList<BullmqLayout> layouts;
    QList<RedisCommand> writes; // one per request not refused, in request order
    WritesInFlight sent;
};
EnqueueInFlight startEnqueueJobs(RedisChannel &conn, const FenceKeys &fence,
                                 const QList<EnqueueRequest> &requests);
QList<EnqueueResult> finishEnqueueJobs(RedisChannel &conn, EnqueueInFlight &inFlight);

} // namespace reclaim::bullmq
