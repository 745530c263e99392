// One recovery run on the real adapters, with a hook at every step boundary (faultports.h).
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "faultports.h"
#include "service/redisadapters.h"

namespace reclaim::test {

RunReport runHooked(const ReclaimConfig &config, const BoundaryHook &hook, const QString &trigger,
                    bool dryRun = false);
// The same on adapters the caller keeps across runs (as the Engine does).
RunReport runHooked(RedisAdapters &redis, const ReclaimConfig &config, const BoundaryHook &hook,
                    const QString &trigger, bool dryRun = false);

} // namespace reclaim::test
