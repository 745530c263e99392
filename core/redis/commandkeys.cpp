#include "redis/commandkeys.h"

#include <QSet>

namespace reclaim {

namespace {

// Commands whose one key is their first argument.
const QSet<QByteArray> &firstKeyCommands()
{
    static const QSet<QByteArray> names{
        "GET",     "SET",       "SETNX",  "INCR",          "DECR",      "PTTL",      "TTL",
        "PEXPIRE", "EXPIRE",    "TYPE",   "HGET",          "HMGET",     "HSET",      "HDEL",
        "HGETALL", "HEXISTS",   "HLEN",   "HINCRBY",       "LLEN",      "LPOS",      "LRANGE",
        "LINDEX",  "LPUSH",     "RPUSH",  "LREM",          "ZADD",      "ZREM",      "ZCARD",
        "ZSCORE",  "ZRANK",     "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "XADD",      "XLEN",
        "XRANGE",  "XREVRANGE", "SADD",   "SREM",          "SMEMBERS",  "SISMEMBER", "SCARD",
    };
    return names;
}

// Commands whose every argument is a key.
const QSet<QByteArray> &allKeysCommands()
{
    static const QSet<QByteArray> names{"EXISTS", "DEL", "UNLINK", "MGET", "TOUCH"};
    return names;
}

const QSet<QByteArray> &keylessCommands()
{
    static const QSet<QByteArray> names{"PING",   "INFO",   "ROLE",    "SCRIPT",  "ACL",
                                        "CONFIG", "AUTH",   "SELECT",  "CLUSTER", "ASKING",
                                        "HELLO",  "CLIENT", "COMMAND", "TIME",    "ECHO"};
    return names;
}

const QSet<QByteArray> &nodeLocalCommands()
{
    static const QSet<QByteArray> names{"SCAN", "DBSIZE", "KEYS", "RANDOMKEY"};
    return names;
}

// EVAL, EVALSHA, their read-only forms and FCALL: a key count, then that many keys.
bool takesKeyCount(const QByteArray &name)
{
    return name == "EVALSHA" || name == "EVAL" || name == "EVALSHA_RO" || name == "EVAL_RO" ||
           name == "FCALL" || name == "FCALL_RO";
}

} // namespace

Expected<CommandKeys, QString> commandKeys(const RedisCommand &argv)
{
    if (argv.isEmpty())
        return unexpected(QStringLiteral("an empty command"));
    const QByteArray name = argv.first().toUpper();
    CommandKeys out;
    if (takesKeyCount(name)) {
        bool ok = false;
        const qsizetype count = argv.size() > 2 ? argv.at(2).toLongLong(&ok) : -1;
        if (!ok || count < 0 || 3 + count > argv.size())
            return unexpected(QStringLiteral("%1 with a key count that is not a count of its "
                                             "arguments")
                                  .arg(QString::fromLatin1(name)));
        out.keys = argv.mid(3, count);
        // A script with no keys has no slot to be routed by: any node runs it.
        if (out.keys.isEmpty())
            out.scope = CommandKeys::Scope::Keyless;
        return out;
    }
    if (firstKeyCommands().contains(name)) {
        if (argv.size() < 2)
            return unexpected(QStringLiteral("%1 without its key").arg(QString::fromLatin1(name)));
        out.keys = {argv.at(1)};
        return out;
    }
    if (allKeysCommands().contains(name)) {
        if (argv.size() < 2)
            return unexpected(QStringLiteral("%1 without a key").arg(QString::fromLatin1(name)));
        out.keys = argv.mid(1);
        return out;
    }
    if (keylessCommands().contains(name)) {
        out.scope = CommandKeys::Scope::Keyless;
        return out;
    }
    if (nodeLocalCommands().contains(name)) {
        out.scope = CommandKeys::Scope::NodeLocal;
        return out;
    }
    return unexpected(QStringLiteral("%1: this client does not know which of its arguments are "
                                     "keys, so it cannot route it in a cluster")
                          .arg(QString::fromLatin1(name)));
}

} // namespace reclaim
