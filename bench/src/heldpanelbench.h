// The console's Held for approval tab on the worst day (issue 30): a listing of N held actions
// (a misspelt queue name held a whole domain) shown, then the N decisions of approving them all
// coming back, as the recovery thread sends them. UI-thread time for each, and the longest
// stall a 5 ms timer saw meanwhile. Synthetic entries, no servers; needs a QApplication.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runHeldPanelBench(const Args &args);

} // namespace reclaim::bench
