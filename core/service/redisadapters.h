// The Redis-side adapters of one deployment over one shared connection: the BullMQ queue
// (inspector and writer) and the recovery lock. Part of the composition root.
#pragma once

#include "bullmq/bullmqqueue.h"
#include "config/reclaimconfig.h"
#include "fencing/redislock.h"
#include "redis/redislink.h"

namespace reclaim {

struct RedisAdapters final
{
    RedisAdapters(const RedisEndpoint &endpoint, const RunSettings &settings)
        : link(endpoint, settings.redisTimeout),
          queue(link, settings, RedisLock::generationKeyFor(settings.lockKey)),
          lock(link, settings.lockKey)
    {}
    Q_DISABLE_COPY_MOVE(RedisAdapters)

    RedisLink link;
    BullmqQueue queue;
    RedisLock lock;
};

} // namespace reclaim
