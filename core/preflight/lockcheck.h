// The lock items of `reclaim --check`: the lock key free or held (by whom, for how long), and
// PostgreSQL's fence row for this lock key against Redis's generation counter.
#pragma once

#include "config/reclaimconfig.h"
#include "postgres/pgconnection.h"
#include "preflight/checkedredis.h"
#include "preflight/checkreport.h"

namespace reclaim {

QStringList lockCheckIds();

// `redis` / `pg` null: that server could not be reached, and what needs it fails "could not
// check".
void checkLock(const ReclaimConfig &config, CheckedRedis *redis, PgConnection *pg,
               CheckReport &report);

} // namespace reclaim
