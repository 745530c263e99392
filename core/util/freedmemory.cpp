#include "util/freedmemory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace reclaim {

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace reclaim
