// A move-only Redis connection with deadlines on connect and on every command, and pipelining:
// over hiredis' own socket for TCP and Unix sockets, over a TlsStream (QSslSocket) for rediss://.
//
// The timeout is a deadline for the whole call, not a bound on each wait for a byte: a server
// that drips one byte at a time just inside the timeout cannot keep a command alive for ever.
// hiredis' own blocking reads only bound each read(), so the socket is non-blocking and every
// wait here is a poll() against the call's deadline.
#pragma once

#include "config/connectionurl.h"
#include "ports/rediserror.h"
#include "redis/redischannel.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <QList>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

struct redisContext;

namespace reclaim {

class TlsStream;

class RedisConnection final : public RedisChannel
{
public:
    // Connects (TCP, Unix socket or TLS), authenticates and selects the database, all within
    // one `timeout`: name resolution, connect, TLS handshake, AUTH and SELECT share it. A TLS
    // connection also confirms its session with a first round trip, so a server that refuses
    // it (no client certificate) fails here, as a Tls error. Each later call has `timeout` of
    // its own.
    static Expected<RedisConnection, RedisError> open(const RedisEndpoint &endpoint,
                                                      std::chrono::milliseconds timeout);

    RedisConnection(RedisConnection &&) noexcept;
    RedisConnection &operator=(RedisConnection &&) noexcept;
    ~RedisConnection() override;

    // One command, one round trip. A server error reply is returned as RedisError::Server.
    RedisResult command(const RedisCommand &argv) override;

    // Writes every command, then reads every reply: one round trip for the whole batch, all
    // within one timeout.
    // The outer error means the connection failed (no reply can be trusted); inner errors are
    // per-command server errors.
    Expected<QList<RedisResult>, RedisError> pipeline(const QList<RedisCommand> &commands) override;

    // pipeline() in two halves, for a caller that keeps one batch in flight while it handles
    // the previous one: send() writes a batch (one round trip), receive() reads the replies of
    // the oldest batch not yet read. Either failing discards the connection.
    Expected<qsizetype, RedisError> send(const QList<RedisCommand> &commands) override;
    Expected<QList<RedisResult>, RedisError> receive(qsizetype count) override;

    // pipeline() for writes, where a failure halfway must not hide what did happen: one answer
    // per command, always. The replies read before the connection failed are kept; a command
    // sent whose reply never came is answered RedisError::Unanswered (it may have run), one
    // that was never sent (the connection was already gone) with that connection's error.
    QList<RedisResult> exchange(const QList<RedisCommand> &commands) override;
    // exchange() in two halves: the batch is written now, its replies read later.
    WritesInFlight sendWrites(const QList<RedisCommand> &commands) override;
    QList<RedisResult> receiveWrites(const WritesInFlight &inFlight) override;

    bool isBroken() const override { return m_broken; }
    qint64 roundTrips() const override { return m_roundTrips; }
    QString endpointName() const { return m_endpointName; }

private:
    struct ContextDeleter
    {
        void operator()(redisContext *c) const;
    };

    RedisConnection(std::unique_ptr<redisContext, ContextDeleter> ctx,
                    std::unique_ptr<TlsStream> tls, QString endpointName, QString user,
                    std::chrono::milliseconds timeout);
    static Expected<std::unique_ptr<redisContext, ContextDeleter>, RedisError>
    connectSocket(const RedisEndpoint &endpoint, const QDeadlineTimer &deadline);
    Expected<bool, RedisError> authenticate(const RedisEndpoint &endpoint,
                                            const QDeadlineTimer &deadline);
    RedisResult commandUntil(const RedisCommand &argv, const QDeadlineTimer &deadline);
    Expected<qsizetype, RedisError> sendUntil(const QList<RedisCommand> &commands,
                                              const QDeadlineTimer &deadline);
    WritesInFlight sendWritesUntil(const QList<RedisCommand> &commands,
                                   const QDeadlineTimer &deadline);
    QList<RedisResult> receiveWritesUntil(const WritesInFlight &inFlight,
                                          const QDeadlineTimer &deadline);
    RedisError takeContextError();
    RedisError timedOut();
    RedisError discarded() const;
    RedisResult fromValue(RedisValue value, const QByteArray &command) const;
    // Reads up to `count` replies into `results`; the connection's error where it failed first.
    std::optional<RedisError> receiveInto(qsizetype count, QList<RedisResult> &results,
                                          const QDeadlineTimer &deadline);
    // One reply off hiredis' socket, waiting for its bytes until `deadline`.
    Expected<RedisValue, RedisError> readSocketReply(const QDeadlineTimer &deadline);

    std::unique_ptr<redisContext, ContextDeleter> m_ctx; // TCP and Unix sockets
    std::unique_ptr<TlsStream> m_tls;                    // rediss://
    QString m_endpointName;
    QString m_user; // named in a NOPERM error; never the password
    std::chrono::milliseconds m_timeout;
    bool m_broken = false;
    qint64 m_roundTrips = 0;
    std::deque<QByteArray> m_unanswered; // names of the commands whose replies were not read yet
};

} // namespace reclaim
