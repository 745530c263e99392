// The Redis items of `reclaim --check`: reachable, version, TLS, ACL user, maxmemory-policy,
// the commands Reclaim needs (ACL DRYRUN with the real key names), cluster mode and hash tags.
#pragma once

#include "config/reclaimconfig.h"
#include "preflight/checkreport.h"
#include "redis/redisconnection.h"

#include <QHash>
#include <optional>

namespace reclaim {

// The item ids checkRedis() adds, in order, whatever the outcome.
QStringList redisCheckIds();

// Adds the Redis items. Returns the connection for the items that follow (queues, lock), or
// nullopt when Redis could not be reached (every Redis item then fails "could not check").
std::optional<RedisConnection> checkRedis(const ReclaimConfig &config, CheckReport &report);

// INFO's "field:value" lines.
QHash<QString, QString> parseInfo(const QByteArray &info);

// True when a key built on `prefix` carries a Redis Cluster hash tag: a '{' followed, later,
// by a '}' with at least one character between (so all of a queue's keys share one slot).
bool hasHashTag(const QString &prefix);

// "major.minor" of a version text such as "7.0.15"; nullopt when it is not one.
std::optional<QPair<int, int>> parseVersion(const QString &text);

} // namespace reclaim
