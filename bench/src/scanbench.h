// Measurement 3 (Reclaim's side): jobs per second through reclaim's paged payload scan
// (scanDomain over BullmqQueue::scanPage) for the candidates the direct lookup left unresolved.
// It also writes those candidates out, so bullmq's getJobs paging can hunt for the same ids.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runScanBench(const Args &args);

} // namespace reclaim::bench
