// The operator console, the default mode: a QApplication and the main window; with
// --screenshot, one run rendered to a PNG.
#pragma once

#include "commandline.h"

namespace reclaim {

int runConsole(int argc, char **argv, const CommandLine &cmd);

} // namespace reclaim
