// `reclaim --once`: one headless run against the configured servers, report on stdout.
#pragma once

#include "commandline.h"

namespace reclaim {

int runOnce(const CommandLine &cmd);

// Console or daemon, chosen at run time (defined where those modes live).
int runInteractiveOrDaemon(int argc, char **argv, const CommandLine &cmd);

} // namespace reclaim
