// The direct lookups of BullmqRedis::probe cut into round trips of script calls
// (core/bullmq/lua/probe.lua), and the replies read back into one sighting per job.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/queueinspector.h"
#include "redis/redisconnection.h"

namespace reclaim {

struct ProbeCall
{
    qsizetype start = 0; // index of the call's first job in the request
    qsizetype count = 0;
};

// The calls of one pipelined round trip: up to RunSettings::probeBatchSize jobs, one call per
// run of jobs in the same queue and at most kProbeIdsPerCall ids.
struct ProbeTrip
{
    QList<ProbeCall> calls;
    QList<RedisCommand> commands;
};

// Ids per probe call. A call holds Redis for its whole batch: about 10 us per id plus one walk
// of each list's tail, some 10 ms for 1,000 ids at worst, the order of BullMQ's own batch scripts
// (clean, obliterate: 1,000 per call). Fewer ids per call walk the same tails more often.
inline constexpr qsizetype kProbeIdsPerCall = 1000;

QList<ProbeTrip> buildProbeTrips(const QList<JobRef> &jobs, const RunSettings &settings,
                                 PayloadSize payload = PayloadSize::Excerpt);

// Appends one result per job of `trip` to `out`, in request order: a sighting, or the error
// that kept this job (or its whole call, or the whole trip) from being looked at.
void readProbeTrip(const ProbeTrip &trip, const Expected<QList<RedisResult>, RedisError> &replies,
                   const QList<JobRef> &jobs, QList<Expected<Sighting, RedisError>> &out);

} // namespace reclaim
