// Measurement 7: pickup latency per bullmq release. From Reclaim's enqueue (BullmqQueue::enqueue)
// to the `active` event of that release's unmodified Worker, blocked waiting before each job,
// side by side with the same Worker's latency for a job its own Queue.add adds.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runPickupBench(const Args &args);

} // namespace reclaim::bench
