// The human-readable form of a `reclaim --check` report and its exit code.
#pragma once

#include "preflight/checkreport.h"

#include <QString>

namespace reclaim {

// One line per item: "PASS  id  summary", then "      fix: ..." when there is a fix; a last
// line with the result and the time it took.
QString formatCheckReport(const CheckReport &report);

// 0 every item passed, 8 (CheckWarned) warnings only, 9 (CheckFailed) any failure.
int exitCodeForCheck(const CheckReport &report);

} // namespace reclaim
