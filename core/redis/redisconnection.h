// A move-only hiredis connection with timeouts on connect and on every command, and pipelining.
#pragma once

#include "config/connectionurl.h"
#include "ports/rediserror.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QByteArray>
#include <QList>
#include <chrono>
#include <memory>

struct redisContext;

namespace reclaim {

using RedisCommand = QList<QByteArray>;
using RedisResult = Expected<RedisValue, RedisError>;

class RedisConnection final
{
public:
    // Connects, authenticates and selects the database, all within `timeout`.
    static Expected<RedisConnection, RedisError> open(const RedisEndpoint &endpoint,
                                                      std::chrono::milliseconds timeout);

    RedisConnection(RedisConnection &&) noexcept = default;
    RedisConnection &operator=(RedisConnection &&) noexcept = default;
    ~RedisConnection();

    // One command, one round trip. A server error reply is returned as RedisError::Server.
    RedisResult command(const RedisCommand &argv);

    // Writes every command, then reads every reply: one round trip for the whole batch.
    // The outer error means the connection failed (no reply can be trusted); inner errors are
    // per-command server errors.
    Expected<QList<RedisResult>, RedisError> pipeline(const QList<RedisCommand> &commands);

    // pipeline() in two halves, for a caller that keeps one batch in flight while it handles
    // the previous one: send() writes a batch (one round trip), receive() reads the replies of
    // the oldest batch not yet read. Either failing discards the connection.
    Expected<qsizetype, RedisError> send(const QList<RedisCommand> &commands);
    Expected<QList<RedisResult>, RedisError> receive(qsizetype count);

    bool isBroken() const { return m_broken; }
    qint64 roundTrips() const { return m_roundTrips; }
    QString endpointName() const { return m_endpointName; }

private:
    struct ContextDeleter
    {
        void operator()(redisContext *c) const;
    };

    RedisConnection(std::unique_ptr<redisContext, ContextDeleter> ctx, QString endpointName);
    RedisError takeContextError();
    RedisError discarded() const;
    static RedisResult fromValue(RedisValue value);

    std::unique_ptr<redisContext, ContextDeleter> m_ctx;
    QString m_endpointName;
    bool m_broken = false;
    qint64 m_roundTrips = 0;
    qsizetype m_unanswered = 0; // commands sent whose replies were not read yet
};

} // namespace reclaim
