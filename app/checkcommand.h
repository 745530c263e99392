// `reclaim --check [--json]`: the preflight against the configured servers, report on stdout.
#pragma once

#include "commandline.h"

namespace reclaim {

int runCheck(const CommandLine &cmd);

} // namespace reclaim
