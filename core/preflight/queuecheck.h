// The per-queue items of `reclaim --check`: the queue exists, its BullMQ layout version is one
// Reclaim knows, paused or not, its job counts per state, and whether a worker is alive.
#pragma once

#include "config/reclaimconfig.h"
#include "preflight/checkedredis.h"
#include "preflight/checkreport.h"

namespace reclaim {

// The item ids for one queue: queue.<prefix>:<queue>.{exists,version,paused,jobs,worker}.
QStringList queueCheckIds(const QString &prefix, const QString &queue);

// Adds the items of every configured queue; `redis` null: Redis could not be reached, and every
// queue item fails "could not check".
void checkQueues(const ReclaimConfig &config, CheckedRedis *redis, CheckReport &report);

} // namespace reclaim
