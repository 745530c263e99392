// The Redis items of `reclaim --check`: reachable, version, TLS, ACL user, maxmemory-policy,
// the commands Reclaim needs (ACL DRYRUN with the real key names), cluster mode and hash tags.
#pragma once

#include "config/reclaimconfig.h"
#include "preflight/checkedredis.h"
#include "preflight/checkreport.h"
#include "redis/redisconnection.h"
#include "util/expected.h"

#include <QHash>
#include <optional>

namespace reclaim {

// The item ids checkRedis() adds, in order, whatever the outcome.
QStringList redisCheckIds();

// Adds the Redis items. Returns the connection for the items that follow (queues, lock), or
// nullopt when Redis could not be reached (every Redis item then fails "could not check"). A
// redis+cluster:// URL is checked on every master (preflight/clustercheck.h).
std::optional<CheckedRedis> checkRedis(const ReclaimConfig &config, CheckReport &report);

// The items one node answers for itself: version, TLS (as `redis` says it is reached), ACL
// user, maxmemory-policy, the commands a run sends. Returns INFO's fields, or why INFO failed.
Expected<QHash<QString, QString>, QString> checkRedisNode(RedisConnection &conn,
                                                          const RedisEndpoint &redis,
                                                          const ReclaimConfig &config,
                                                          CheckReport &report);

// redis.reachable fails with `why`, and every other Redis item cannot be checked.
void reportRedisUnreachable(const QString &where, const QString &why, CheckReport &report);

// redis.hash-tags: every domain's key prefix carries a {hash tag}, or which do not.
void addHashTagItem(const ReclaimConfig &config, CheckReport &report);

// INFO's "field:value" lines.
QHash<QString, QString> parseInfo(const QByteArray &info);

// True when a key built on `prefix` carries a Redis Cluster hash tag: a '{' followed, later,
// by a '}' with at least one character between (so all of a queue's keys share one slot).
bool hasHashTag(const QString &prefix);

// "major.minor" of a version text such as "7.0.15"; nullopt when it is not one.
std::optional<QPair<int, int>> parseVersion(const QString &text);

} // namespace reclaim
