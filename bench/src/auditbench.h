// Measurement 6: the console's audit history over a large reclaim.audit. Seeds --rows audit rows
// (default 100,000), then opens the history window: UI-thread time to the first page on screen
// (the window's own calls plus applying and painting the page; the query runs on the audit
// thread), the longest UI-thread stall while it loads and while the operator scrolls through
// further pages, and a job-filtered open. The empty window's own first show and paint is
// measured apart (it is the same for any window, whatever the audit holds). Needs a QApplication
// (offscreen is fine).
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runAuditBench(const Args &args);

} // namespace reclaim::bench
