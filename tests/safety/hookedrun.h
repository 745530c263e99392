// One recovery run on the real adapters, with a hook at every step boundary (faultports.h).
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "faultports.h"

namespace reclaim::test {

RunReport runHooked(const ReclaimConfig &config, const BoundaryHook &hook, const QString &trigger,
                    bool dryRun = false);

} // namespace reclaim::test
