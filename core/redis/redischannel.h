// What the queue and lock adapters talk to Redis through: one node (RedisConnection) or a Redis
// Cluster (ClusterClient, which routes each command to the master of its keys' slot). The
// adapters send the same commands and scripts either way.
#pragma once

#include "ports/rediserror.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QByteArray>
#include <QList>
#include <optional>

namespace reclaim {

using RedisCommand = QList<QByteArray>;
using RedisResult = Expected<RedisValue, RedisError>;

// A batch of writes sent by RedisChannel::sendWrites() whose answers are not read yet.
struct WritesInFlight
{
    qsizetype count = 0;
    // A channel that sends nothing ahead (the default) keeps the batch here until it is read.
    QList<RedisCommand> deferred;
    // Why sending failed; `mayHaveRun`: the channel was usable, so some commands may have
    // reached the server and run (they are answered Unanswered, never as not sent).
    std::optional<RedisError> sendError;
    bool mayHaveRun = false;
};

class RedisChannel
{
public:
    virtual ~RedisChannel() = default;

    // One command, one answer. A server error reply is returned as RedisError::Server.
    virtual RedisResult command(const RedisCommand &argv) = 0;

    // Reads in one batch. The outer error means nothing in the batch can be trusted (the
    // connection failed, or a cluster's slot map could not be read); inner errors are the
    // commands' own.
    virtual Expected<QList<RedisResult>, RedisError>
    pipeline(const QList<RedisCommand> &commands) = 0;

    // pipeline() in two halves, for a caller that keeps one batch in flight while it handles
    // the previous one: send() writes a batch, receive() reads the replies of the oldest batch
    // not yet read.
    virtual Expected<qsizetype, RedisError> send(const QList<RedisCommand> &commands) = 0;
    virtual Expected<QList<RedisResult>, RedisError> receive(qsizetype count) = 0;

    // Writes: one answer per command, always, where a command sent whose reply never came is
    // RedisError::Unanswered (it may have run).
    virtual QList<RedisResult> exchange(const QList<RedisCommand> &commands) = 0;
    // exchange() in two halves, for a writer that keeps one batch in flight while it does other
    // work (#30: a batch's enqueues while PostgreSQL writes the previous batch's rows).
    // receiveWrites() answers exactly as exchange() would have. Nothing else may use the
    // channel in between. The default sends nothing ahead: the whole exchange happens in
    // receiveWrites().
    virtual WritesInFlight sendWrites(const QList<RedisCommand> &commands)
    {
        WritesInFlight inFlight;
        inFlight.count = commands.size();
        inFlight.deferred = commands;
        return inFlight;
    }
    virtual QList<RedisResult> receiveWrites(const WritesInFlight &inFlight)
    {
        return exchange(inFlight.deferred);
    }

    // A channel that failed as a whole and is not to be used again.
    virtual bool isBroken() const = 0;
    virtual qint64 roundTrips() const = 0;

    // The source of a script run by EVALSHA, for a channel that may have to give it to a node
    // that answers NOSCRIPT in the middle of a batch (a cluster node reached by a redirection).
    virtual void learnScript(const QByteArray &sha, const QByteArray &source)
    {
        Q_UNUSED(sha);
        Q_UNUSED(source);
    }

protected:
    RedisChannel() = default;
    RedisChannel(const RedisChannel &) = default;
    RedisChannel(RedisChannel &&) noexcept = default;
    RedisChannel &operator=(const RedisChannel &) = default;
    RedisChannel &operator=(RedisChannel &&) noexcept = default;
};

} // namespace reclaim
