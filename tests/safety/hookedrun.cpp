#include "hookedrun.h"

#include "queue/bullmqredis.h"
#include "recovery/recoveryrun.h"
#include "store/pgjobstore.h"

namespace reclaim::test {

RunReport runHooked(const ReclaimConfig &config, const BoundaryHook &hook, const QString &trigger,
                    bool dryRun)
{
    BullmqRedis redis(config.redis, config.run);
    HookedQueue hookedQueue(redis, redis, redis, hook);
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
