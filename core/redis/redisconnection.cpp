#include "redis/redisconnection.h"

#include <cerrno>
#include <hiredis/hiredis.h>

namespace reclaim {

namespace {

struct ReplyDeleter
{
    void operator()(void *r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<void, ReplyDeleter>;

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

} // namespace

void RedisConnection::ContextDeleter::operator()(redisContext *c) const
{
    redisFree(c);
}

RedisConnection::RedisConnection(std::unique_ptr<redisContext, ContextDeleter> ctx,
                                 QString endpointName)
    : m_ctx(std::move(ctx)), m_endpointName(std::move(endpointName))
{}

RedisConnection::~RedisConnection() = default;

Expected<RedisConnection, RedisError> RedisConnection::open(const RedisEndpoint &endpoint,
                                                            std::chrono::milliseconds timeout)
{
    const QString name = QStringLiteral("%1:%2").arg(endpoint.host).arg(endpoint.port);
    const QByteArray host = endpoint.host.toUtf8();
    std::unique_ptr<redisContext, ContextDeleter> ctx(
        redisConnectWithTimeout(host.constData(), endpoint.port, toTimeval(timeout)));
    if (!ctx)
        return unexpected(
            RedisError{RedisError::Kind::Connect,
                       QStringLiteral("cannot allocate a connection to %1").arg(name)});
    if (ctx->err) {
        const bool timedOut =
            ctx->err == REDIS_ERR_IO && (errno == ETIMEDOUT || errno == EINPROGRESS);
        return unexpected(
            RedisError{timedOut ? RedisError::Kind::Timeout : RedisError::Kind::Connect,
                       QStringLiteral("cannot connect to %1: %2")
                           .arg(name, QString::fromLocal8Bit(ctx->errstr))});
    }
    if (redisSetTimeout(ctx.get(), toTimeval(timeout)) != REDIS_OK)
        return unexpected(RedisError{RedisError::Kind::Connect,
                                     QStringLiteral("cannot set a timeout on %1").arg(name)});

    RedisConnection conn(std::move(ctx), name);
    if (!endpoint.password.isEmpty()) {
        RedisCommand auth{QByteArrayLiteral("AUTH")};
        if (!endpoint.user.isEmpty())
            auth << endpoint.user.toUtf8();
        auth << endpoint.password.toUtf8();
        auto r = conn.command(auth);
        if (!r) // the message is the server's, which never echoes the password
            return unexpected(RedisError{
                RedisError::Kind::Connect,
                QStringLiteral("authentication to %1 failed: %2").arg(name, r.error().message)});
    }
    if (endpoint.database != 0) {
        auto r = conn.command({QByteArrayLiteral("SELECT"), QByteArray::number(endpoint.database)});
        if (!r)
            return unexpected(RedisError{RedisError::Kind::Connect,
                                         QStringLiteral("cannot select database %1 on %2: %3")
                                             .arg(endpoint.database)
                                             .arg(name, r.error().message)});
    }
    return conn;
}

RedisError RedisConnection::takeContextError()
{
    m_broken = true;
    const int err = m_ctx ? m_ctx->err : REDIS_ERR_OTHER;
    const QString text =
        m_ctx ? QString::fromLocal8Bit(m_ctx->errstr) : QStringLiteral("no connection");
    RedisError::Kind kind = RedisError::Kind::Io;
    if (err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ETIMEDOUT))
        return {RedisError::Kind::Timeout,
                QStringLiteral("%1 did not answer in time").arg(m_endpointName)};
    if (err == REDIS_ERR_PROTOCOL)
        kind = RedisError::Kind::Protocol;
    if (err == REDIS_ERR_EOF)
        return {RedisError::Kind::Io,
                QStringLiteral("%1 closed the connection").arg(m_endpointName)};
    return {kind, QStringLiteral("%1: %2").arg(m_endpointName, text)};
}

RedisResult RedisConnection::fromValue(RedisValue value)
{
    if (!value.isError())
        return value;
    const QString text = QString::fromUtf8(value.string);
    if (text.startsWith(QLatin1String("NOSCRIPT")))
        return unexpected(RedisError{RedisError::Kind::NoScript, text});
    return unexpected(RedisError{RedisError::Kind::Server, text});
}

RedisResult RedisConnection::command(const RedisCommand &argv)
{
    auto replies = pipeline({argv});
    if (!replies)
        return unexpected(replies.error());
    return replies->first();
}

Expected<QList<RedisResult>, RedisError>
RedisConnection::pipeline(const QList<RedisCommand> &commands)
{
    auto sent = send(commands);
    if (!sent)
        return unexpected(sent.error());
    return receive(commands.size());
}

RedisError RedisConnection::discarded() const
{
    return RedisError{
        RedisError::Kind::Closed,
        QStringLiteral("connection to %1 was discarded after an error").arg(m_endpointName)};
}

Expected<qsizetype, RedisError> RedisConnection::send(const QList<RedisCommand> &commands)
{
    if (m_broken || !m_ctx)
        return unexpected(discarded());
    // The whole batch encoded once, in the same RESP bytes redisAppendCommandArgv would write:
    // hiredis' formatter costs more per lookup than everything else on this side.
    qsizetype size = 0;
    for (const RedisCommand &cmd : commands) {
        size += 16;
        for (const QByteArray &arg : cmd)
            size += arg.size() + 24;
    }
    QByteArray wire;
    wire.reserve(size);
    for (const RedisCommand &cmd : commands) {
        wire += '*';
        wire += QByteArray::number(cmd.size());
        wire += "\r\n";
        for (const QByteArray &arg : cmd) {
            wire += '$';
            wire += QByteArray::number(arg.size());
            wire += "\r\n";
            wire += arg;
            wire += "\r\n";
        }
    }
    if (redisAppendFormattedCommand(m_ctx.get(), wire.constData(),
                                    static_cast<size_t>(wire.size())) != REDIS_OK)
        return unexpected(takeContextError());
    // Written now, not at the next read: the server starts on this batch while the caller
    // still reads the replies of an earlier one.
    int done = 0;
    while (!done)
        if (redisBufferWrite(m_ctx.get(), &done) != REDIS_OK)
            return unexpected(takeContextError());
    ++m_roundTrips;
    m_unanswered += commands.size();
    return commands.size();
}

Expected<QList<RedisResult>, RedisError> RedisConnection::receive(qsizetype count)
{
    if (m_broken || !m_ctx)
        return unexpected(discarded());
    if (count > m_unanswered)
        return unexpected(RedisError{
            RedisError::Kind::Protocol,
            QStringLiteral("asked for %1 replies, %2 outstanding").arg(count).arg(m_unanswered)});
    QList<RedisResult> results;
    results.reserve(count);
    for (qsizetype i = 0; i < count; ++i) {
        void *raw = nullptr;
        if (redisGetReply(m_ctx.get(), &raw) != REDIS_OK)
            return unexpected(takeContextError());
        --m_unanswered;
        ReplyPtr reply(raw);
        results.append(fromValue(RedisValue::fromReply(static_cast<redisReply *>(raw))));
    }
    return results;
}

} // namespace reclaim
