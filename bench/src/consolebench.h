// Measurement 5: the operator console under a full-size report. UI-thread time to apply a
// report to the models and views (MainWindow::showReport plus the layout and paint it causes),
// and the longest UI-thread stall while a real run is in flight, seen by a 5 ms timer that
// records how late each tick fires. Needs a QApplication (offscreen is fine).
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runConsoleBench(const Args &args);

} // namespace reclaim::bench
