// Measurement 4: one whole recovery run with the real adapters (PgJobStore + BullmqQueue +
// RedisLock, wired as Engine::run wires them), its wall time split by phase, Redis round trips per
// phase and the process's peak RSS. Run it in a fresh process per repetition so the peak belongs to
// one run.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runRunBench(const Args &args);

} // namespace reclaim::bench
