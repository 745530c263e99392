// The human-readable form of a run report, for --once on a terminal.
#pragma once

#include "domain/runreport.h"

#include <QString>
class QTextStream;

namespace reclaim {

// Written a line at a time to `out`: a run over 100,000 candidates never holds its text whole.
void printReport(const RunReport &report, QTextStream &out);
int exitCodeFor(const RunReport &report);

} // namespace reclaim
