#include "hookedrun.h"

#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"

namespace reclaim::test {

RunReport runHooked(const ReclaimConfig &config, const BoundaryHook &hook, const QString &trigger,
                    bool dryRun)
{
    RedisAdapters redis(config);
    return runHooked(redis, config, hook, trigger, dryRun);
}

RunReport runHooked(RedisAdapters &redis, const ReclaimConfig &config, const BoundaryHook &hook,
                    const QString &trigger, bool dryRun)
{
    HookedQueue hookedQueue(redis.queue, redis.queue, redis.lock, hook);
    RunRequest request;
    request.trigger = trigger;
    request.dryRun = dryRun;
    request.actor = Actor{QStringLiteral("test"), trigger, QStringLiteral("test"), {}};
    auto store = PgJobStore::open(config, dryRun);
    if (!store) // the run reports the store's error and touches nothing
        return RecoveryRun(config, nullptr, store.error().message, hookedQueue, hookedQueue,
                           hookedQueue)
            .run(request);
    HookedStore hookedStore(**store, hook);
    return RecoveryRun(config, &hookedStore, {}, hookedQueue, hookedQueue, hookedQueue)
        .run(request);
}

} // namespace reclaim::test
