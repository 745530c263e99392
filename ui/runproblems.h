// Turns what went wrong in a run (skipped, failed, unreadable tables, unfinished scans, a lost
// lock) into banner lines an operator understands; clears the lines that no longer apply.
#pragma once

#include "domain/runreport.h"

#include <optional>

namespace reclaim::ui {

class Banner;

// `lastCompletedAt`: when the run the tables still show started, if there was one.
void showRunProblems(Banner &banner, const RunReport &report,
                     const std::optional<QDateTime> &lastCompletedAt);

} // namespace reclaim::ui
