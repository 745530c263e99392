// The Redis items of `reclaim --check` for a redis+cluster:// URL. An ACL user, a
// maxmemory-policy and a version belong to each node, so every master is checked as a single
// node would be and each item reports its worst master by name. Beside them: the slot map as
// the seeds describe it, and where each domain's queues and the lock live (slot and master).
#pragma once

#include "config/reclaimconfig.h"
#include "preflight/checkedredis.h"
#include "preflight/checkreport.h"

#include <optional>

namespace reclaim {

// Adds the ids of redisCheckIds(), then "redis.slot.lock" and one "redis.slot.<domain>" per
// domain when the slot map could be read. Returns the cluster client the queue and lock items
// read through, or nullopt when no seed gave a slot map.
std::optional<CheckedRedis> checkCluster(const ReclaimConfig &config, CheckReport &report);

// The ids of the slot items checkCluster() adds for `config`.
QStringList clusterSlotCheckIds(const ReclaimConfig &config);

} // namespace reclaim
