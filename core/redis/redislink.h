// The one Redis connection the queue and lock adapters share, opened on first use and opened
// again after a failure: one failure is one UNKNOWN, not a poisoned run.
#pragma once

#include "config/connectionurl.h"
#include "redis/clusterclient.h"
#include "redis/redisconnection.h"

#include <chrono>
#include <memory>
#include <optional>

namespace reclaim {

class RedisLink final
{
public:
    RedisLink(RedisEndpoint endpoint, std::chrono::milliseconds timeout);
    Q_DISABLE_COPY_MOVE(RedisLink)

    // The live connection; a broken one is discarded and a new one opened (for a Sentinel
    // endpoint: to the master the sentinels name at that moment, redis/masterlocator.h). For a
    // cluster endpoint: the one cluster client, which opens and reopens each node itself.
    Expected<RedisChannel *, RedisError> connection();

    // Called as a run starts: for a Sentinel endpoint the connection is closed, so the run asks
    // the sentinels again and follows a failover since the last run without a restart; a
    // cluster reads its slot map again. A direct endpoint keeps its connection.
    void startRun();

    // The connection as it is, broken or not, without opening one: for reading the replies
    // of commands already sent on it. Null before the first connection().
    RedisChannel *current();

    // Round trips over every connection this link has had.
    qint64 roundTrips() const;

private:
    RedisEndpoint m_endpoint;
    std::chrono::milliseconds m_timeout;
    std::optional<RedisConnection> m_conn;
    std::unique_ptr<ClusterClient> m_cluster; // a redis+cluster:// endpoint, made on first use
    qint64 m_closedRoundTrips = 0;
};

} // namespace reclaim
