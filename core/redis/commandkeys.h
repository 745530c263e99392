// Which arguments of a command are keys: what a Redis Cluster client routes a command by. Only
// commands whose key positions are known here are routed; any other is refused before it is
// sent, since a guess would send a write to a node chosen by its first argument.
#pragma once

#include "redis/redisconnection.h"
#include "util/expected.h"

#include <QByteArray>
#include <QList>

namespace reclaim {

struct CommandKeys
{
    enum class Scope
    {
        Keys,      // routed by the slot of `keys` (all in one slot, or the call is refused)
        Keyless,   // any node answers the same (PING, SCRIPT LOAD, ACL WHOAMI)
        NodeLocal, // each node answers for its own keys only (SCAN, DBSIZE): sent to a node named
    };
    Scope scope = Scope::Keys;
    QList<QByteArray> keys;
};

// The keys of `argv`, or why they cannot be told (an unknown command, EVALSHA with a key count
// that is not a number or runs past the arguments).
Expected<CommandKeys, QString> commandKeys(const RedisCommand &argv);

} // namespace reclaim
