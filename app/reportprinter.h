// The human-readable form of a run report, for --once on a terminal.
#pragma once

#include "domain/runreport.h"

#include <QString>

namespace reclaim {

QString formatReport(const RunReport &report);
int exitCodeFor(const RunReport &report);

} // namespace reclaim
