// `reclaim --daemon`: headless, QCoreApplication only; runs on a schedule until SIGTERM.
#pragma once

#include "commandline.h"

namespace reclaim {

int runDaemon(int argc, char **argv, const CommandLine &cmd);

} // namespace reclaim
