// Opens the connection a run talks to: for redis+sentinel:// the master the sentinels name now,
// confirmed with ROLE; for any other endpoint the configured node as it is.
#pragma once

#include "config/connectionurl.h"
#include "redis/redisconnection.h"

#include <chrono>
#include <optional>

namespace reclaim {

// For a Sentinel endpoint: asks each sentinel in order (`SENTINEL get-master-addr-by-name`,
// each connection bounded by `timeout`), connects to the master it names with the endpoint's
// credentials and database, and accepts it only if its ROLE says master. A sentinel that is
// down, does not know the master, or names a node that is not (or no longer) the master is
// passed over for the next one; when none leads to a master the error names what each said.
// For any other endpoint: RedisConnection::open.
Expected<RedisConnection, RedisError> openMaster(const RedisEndpoint &endpoint,
                                                 std::chrono::milliseconds timeout);

// Why `conn` is not the master, or nothing when its ROLE says master: a replica answers reads
// with data that may lag and refuses writes, so a run must not take it for the master.
std::optional<RedisError> notMaster(RedisConnection &conn);

} // namespace reclaim
