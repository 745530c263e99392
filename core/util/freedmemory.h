// Giving memory a run no longer holds back to the system.
#pragma once

namespace reclaim {

// Returns the pages of freed heap memory to the system (glibc's malloc_trim(); a no-op
// elsewhere). Freed memory otherwise stays in the process: a mass recovery frees a million
// candidates' strings and a long list's ids between its phases, in small pieces among ones still
// in use, and without this the next phase's allocations come on top of them. Called between the
// phases of a run, and by the daemon after one, never in a loop: it walks the whole heap.
void releaseFreedMemory();

} // namespace reclaim
