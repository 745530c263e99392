// `reclaim --held | --approve | --reject` (#29): what waits for an operator, for a server without
// a display. Listing reads only; approving runs each action through the same check-again-then-
// run path as the console (recovery/heldapproval.h), one at a time, each under its own lock.
#pragma once

#include "commandline.h"

namespace reclaim {

int runHeldCommand(const CommandLine &cmd);

} // namespace reclaim
