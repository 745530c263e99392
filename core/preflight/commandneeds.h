// Every Redis command a run of Reclaim sends or has its scripts send, with the real key names of
// the configured queues and lock: what `reclaim --check` asks ACL DRYRUN about. Read off
// core/bullmq/lua/*.lua, core/fencing/lua/*.lua and the adapters; keep it in step with them.
#pragma once

#include "config/reclaimconfig.h"
#include "redis/redisconnection.h"

#include <QList>
#include <QString>

namespace reclaim {

struct CommandNeed
{
    QString what;      // e.g. "HSET bull:video-generation:meta (enqueue.lua)"
    RedisCommand argv; // the command as a run sends it, with plausible arguments
};

// The queues of the configuration, each (key prefix, queue) once, in configuration order.
QList<QPair<QString, QString>> configuredQueues(const ReclaimConfig &config);

QList<CommandNeed> commandNeeds(const ReclaimConfig &config);

} // namespace reclaim
