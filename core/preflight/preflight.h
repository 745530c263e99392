// `reclaim --check`: every item a deployment gets wrong before its first run, checked against
// the configured servers — PostgreSQL, Redis, each queue, the lock — with read-only commands
// under the configured timeouts. Synchronous and thread-confined, like a run.
#pragma once

#include "config/configloader.h"
#include "preflight/checkreport.h"

namespace reclaim {

CheckReport runPreflight(const ReclaimConfig &config);

// The report of a configuration that could not be loaded: its one item, "config", fails with
// the loader's error.
CheckReport configFailureReport(const ConfigError &error);

} // namespace reclaim
