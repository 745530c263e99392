// The parser of redis+cluster:// URLs: the seed nodes and the credentials every node shares.
#pragma once

#include "config/connectionurl.h"
#include "util/expected.h"

namespace reclaim {

// redis[s]+cluster://[[user]:password@]host[:port][,host[:port]...][/0]
// The user and password are sent to every node (an ACL user must exist on each). A cluster has
// database 0 only, so any other database is refused. The caller sets TLS for the rediss+ form.
Expected<RedisEndpoint, QString> parseClusterUrl(const QString &url);

} // namespace reclaim
