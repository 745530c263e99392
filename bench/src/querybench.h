// Measurement 1: the candidate query per domain, as PgJobStore::readCandidates runs it, against
// the same query with index scans disabled; EXPLAIN (ANALYZE, BUFFERS) of both, and a check that
// the plan uses the domain's composite (status, ..., updatedAt) index.
#pragma once

#include "benchutil.h"

namespace reclaim::bench {

int runQueryBench(const Args &args);

} // namespace reclaim::bench
