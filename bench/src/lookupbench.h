// Measurement 2 (Reclaim's side): the direct lookup of a list of candidates with reclaim's own
// code — lookUpDirectly over BullmqQueue, probe batches of run.probeBatchSize — timed per
// repetition, with the Redis round trips it took.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runLookupBench(const Args &args);

} // namespace reclaim::bench
