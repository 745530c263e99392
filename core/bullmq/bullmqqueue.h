// The queue ports (inspector and writer) over BullMQ's layout in Redis: batched direct lookups,
// paged scans and the requeue, each a server-side script (core/bullmq/lua).
#pragma once

#include "config/fencekeys.h"
#include "config/reclaimconfig.h"
#include "ports/queueinspector.h"
#include "ports/queuewriter.h"
#include "redis/redislink.h"

namespace reclaim {

class BullmqQueue final : public QueueInspector, public QueueWriter
{
public:
    // `fence`: which key holds the fencing generation each queue's enqueue checks.
    BullmqQueue(RedisLink &link, const RunSettings &settings, FenceKeys fence);
    Q_DISABLE_COPY_MOVE(BullmqQueue)

    using QueueInspector::probe;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                PayloadSize payload) override;
    Expected<RowIdSet, RedisError> listMembers(const QString &keyPrefix, const QString &queue,
                                               const QString &list) override;
    Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                            const QString &state, const ScanCursor &from,
                                            int count) override;
    Expected<QueueMoves, RedisError> movesSince(const QString &keyPrefix, const QString &queue,
                                                const QString &since) override;
    // One round trip for the page and the event log read after it.
    PageThenMoves scanPageThenMoves(const QString &keyPrefix, const QString &queue,
                                    const QString &state, const ScanCursor &from, int count,
                                    const QString &since) override;
    Expected<bool, RedisError> hasTrace(const QString &keyPrefix, const QString &queue) override;
    Expected<PrioritizedSince, RedisError>
    prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark) override;
    qint64 roundTrips() const override;

    // Same id, retained job (SPEC §4): a retained completed/failed job under the id is removed
    // and the job added in one script, which answers what it found and what it left runnable.
    Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) override;
    // The whole batch in two round trips (bullmq/jobenqueue.h).
    QList<Expected<EnqueueOutcome, RedisError>>
    enqueueMany(const QList<EnqueueRequest> &requests) override;
    // The batch's scripts go out now; finish() reads their answers.
    std::unique_ptr<PendingEnqueue> startEnqueue(const QList<EnqueueRequest> &requests) override;

private:
    Expected<ScanPage, RedisError> readPage(const QString &keyPrefix, const QString &queue,
                                            const QString &state, const ScanCursor &from, int count,
                                            bool withData);
    static bool isListState(const QString &state);
    static RedisCommand pageCommand(const QString &keyPrefix, const QString &queue,
                                    const QString &state, const ScanCursor &from, int count,
                                    bool withData);
    static Expected<ScanPage, RedisError> pageFromReply(const RedisResult &r, const QString &queue,
                                                        bool isList, const ScanCursor &from,
                                                        bool withData);
    static RedisCommand movesCommand(const QString &keyPrefix, const QString &queue,
                                     const QString &since);
    static Expected<QueueMoves, RedisError> movesFromReply(const RedisResult &r);

    RedisLink &m_link;
    RunSettings m_settings;
    FenceKeys m_fence;
};

} // namespace reclaim
