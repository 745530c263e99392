// The Redis-side adapters of one deployment over one shared connection: the BullMQ queue
// (inspector and writer) and the recovery lock. Part of the composition root.
#pragma once

#include "bullmq/bullmqqueue.h"
#include "config/reclaimconfig.h"
#include "fencing/leftlockreleaser.h"
#include "fencing/redislock.h"
#include "redis/redislink.h"

namespace reclaim {

struct RedisAdapters final
{
    // `queues`: every (prefix, queue) the runs may write to; on a Redis Cluster the lock raises
    // the fencing generation's copy in each of their slots (config/fencekeys.h).
    RedisAdapters(const RedisEndpoint &endpoint, const RunSettings &settings,
                  const QList<QPair<QString, QString>> &queues = {})
        : link(endpoint, settings.redisTimeout),
          fence(settings.lockKey, endpoint.cluster.has_value()), queue(link, settings, fence),
          redisLock(link, settings.lockKey, fence.copiesFor(queues)), lock(redisLock)
    {}
    explicit RedisAdapters(const ReclaimConfig &config)
        : RedisAdapters(config.redis, config.run, queuesOf(config))
    {}
    Q_DISABLE_COPY_MOVE(RedisAdapters)

    RedisLink link;
    FenceKeys fence;
    BullmqQueue queue;
    RedisLock redisLock;
    // What every runner takes: the lock, giving back a token a failed release or an unanswered
    // acquire of this deployment's adapters may have left (fencing/leftlockreleaser.h).
    LeftLockReleaser lock;
};

} // namespace reclaim
