// The parser of redis+sentinel:// URLs: the sentinels, the master's name, and the credentials
// and database of the master it leads to.
#pragma once

#include "config/connectionurl.h"
#include "util/expected.h"

namespace reclaim {

// redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/masterName[/database]
// The user and password are the master's (and its replicas'), never sent to a sentinel: the
// sentinels' own come from connections.redisSentinel (SentinelSpec::user/password). The caller
// sets TLS for the rediss+ form.
Expected<RedisEndpoint, QString> parseSentinelUrl(const QString &url);

} // namespace reclaim
