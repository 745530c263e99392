// A Lua script known by its SHA1, run with EVALSHA and loaded on demand after NOSCRIPT.
#pragma once

#include "redis/redischannel.h"

#include <QByteArray>
#include <QList>

namespace reclaim {

class LuaScript final
{
public:
    LuaScript(const char *name, const char *source);

    const char *name() const { return m_name; }
    const QByteArray &sha() const { return m_sha; }
    const QByteArray &source() const { return m_source; }

    RedisCommand evalsha(const QList<QByteArray> &keys, const QList<QByteArray> &args) const;

    // Runs `commands` (EVALSHA of this script) as one pipeline. Commands answered NOSCRIPT
    // (the server restarted or flushed its scripts) are retried once after SCRIPT LOAD. A
    // cluster channel is given the source first, and loads it on each node that lacks it.
    Expected<QList<RedisResult>, RedisError> run(RedisChannel &conn,
                                                 const QList<RedisCommand> &commands) const;
    // run() for writes (RedisConnection::exchange): one answer per command, always, where a
    // connection lost halfway answers the commands it left without a reply Unanswered.
    QList<RedisResult> runEach(RedisChannel &conn, const QList<RedisCommand> &commands) const;
    // runEach() in two halves (RedisChannel::sendWrites): sendEach() writes the batch,
    // receiveEach() reads its answers and retries what was answered NOSCRIPT, as runEach() does.
    WritesInFlight sendEach(RedisChannel &conn, const QList<RedisCommand> &commands) const;
    QList<RedisResult> receiveEach(RedisChannel &conn, const QList<RedisCommand> &commands,
                                   const WritesInFlight &inFlight) const;
    RedisResult runOne(RedisChannel &conn, const QList<QByteArray> &keys,
                       const QList<QByteArray> &args) const;

private:
    void nameScriptInRefusals(QList<RedisResult> &results) const;

    const char *m_name;
    QByteArray m_source;
    QByteArray m_sha;
};

} // namespace reclaim
