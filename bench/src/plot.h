// The growth plot: whole-run time against the number of candidates and against the queue size,
// rendered offscreen with Qt Charts into one PNG.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runPlot(const Args &args);

} // namespace reclaim::bench
