#include "redis/redisconnection.h"

#include "redis/tlsstream.h"

#include <cerrno>
#include <charconv>
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
                                 std::unique_ptr<TlsStream> tls, QString endpointName, QString user)
    : m_ctx(std::move(ctx)), m_tls(std::move(tls)), m_endpointName(std::move(endpointName)),
      m_user(std::move(user))
{}

RedisConnection::RedisConnection(RedisConnection &&) noexcept = default;
RedisConnection &RedisConnection::operator=(RedisConnection &&) noexcept = default;
RedisConnection::~RedisConnection() = default;

Expected<RedisConnection, RedisError> RedisConnection::open(const RedisEndpoint &endpoint,
                                                            std::chrono::milliseconds timeout)
{
    const QString name = endpoint.serverName();
    if (endpoint.tls.enabled) {
        auto stream = TlsStream::open(endpoint, timeout);
        if (!stream)
            return unexpected(stream.error());
        RedisConnection conn(nullptr, std::move(*stream), name, endpoint.user);
        auto ready = conn.authenticate(endpoint);
        if (!ready)
            return unexpected(ready.error());
        return conn;
    }
    std::unique_ptr<redisContext, ContextDeleter> ctx(
        endpoint.isSocket() ? redisConnectUnixWithTimeout(
                                  endpoint.socketPath.toLocal8Bit().constData(), toTimeval(timeout))
                            : redisConnectWithTimeout(endpoint.host.toUtf8().constData(),
                                                      endpoint.port, toTimeval(timeout)));
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

    RedisConnection conn(std::move(ctx), nullptr, name, endpoint.user);
    auto ready = conn.authenticate(endpoint);
    if (!ready)
        return unexpected(ready.error());
    return conn;
}

// AUTH and SELECT, and for TLS a first round trip in any case: a server that requires a client
// certificate accepts the handshake (TLS 1.3 finishes it first) and ends the session at the
// first read, which must be a TLS error at connect, not an I/O error at the first lookup.
Expected<bool, RedisError> RedisConnection::authenticate(const RedisEndpoint &endpoint)
{
    const auto asTls = [&](const RedisError &e) {
        if (!m_tls || (e.kind != RedisError::Kind::Io && e.kind != RedisError::Kind::Tls))
            return e;
        const QString hint =
            endpoint.tls.certFile.isEmpty()
                ? QStringLiteral(" (a server that requires a client certificate does this when "
                                 "none is given: set connections.redisTls.cert and key)")
                : QStringLiteral(" (is the client certificate signed by a CA the server "
                                 "trusts?)");
        return RedisError{RedisError::Kind::Tls,
                          QStringLiteral("the TLS session with %1 ended at its first command "
                                         "(%2)%3")
                              .arg(m_endpointName, e.message, hint)};
    };
    if (!endpoint.password.isEmpty()) {
        RedisCommand auth{QByteArrayLiteral("AUTH")};
        if (!endpoint.user.isEmpty())
            auth << endpoint.user.toUtf8();
        auth << endpoint.password.toUtf8();
        auto r = command(auth);
        if (!r) {
            const RedisError e = asTls(r.error());
            if (e.kind != r.error().kind)
                return unexpected(e);
            const bool refused = e.kind == RedisError::Kind::Server ||
                                 e.kind == RedisError::Kind::Auth ||
                                 e.kind == RedisError::Kind::NoPermission;
            // The message is the server's, which never echoes the password.
            const QString who = endpoint.user.isEmpty()
                                    ? QStringLiteral("the default user")
                                    : QStringLiteral("user '%1'").arg(endpoint.user);
            return unexpected(RedisError{refused ? RedisError::Kind::Auth : e.kind,
                                         QStringLiteral("authentication to %1 as %2 failed: %3")
                                             .arg(m_endpointName, who, e.message)});
        }
    } else if (m_tls) {
        auto r = command({QByteArrayLiteral("PING")});
        if (!r)
            return unexpected(asTls(r.error()));
    }
    if (endpoint.database != 0) {
        auto r = command({QByteArrayLiteral("SELECT"), QByteArray::number(endpoint.database)});
        if (!r)
            return unexpected(RedisError{r.error().kind == RedisError::Kind::Server
                                             ? RedisError::Kind::Connect
                                             : r.error().kind,
                                         QStringLiteral("cannot select database %1 on %2: %3")
                                             .arg(endpoint.database)
                                             .arg(m_endpointName, r.error().message)});
    }
    return true;
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

RedisResult RedisConnection::fromValue(RedisValue value, const QByteArray &command) const
{
    if (!value.isError())
        return value;
    const QString text = QString::fromUtf8(value.string);
    if (text.startsWith(QLatin1String("NOSCRIPT")))
        return unexpected(RedisError{RedisError::Kind::NoScript, text});
    if (text.startsWith(QLatin1String("NOAUTH")) || text.startsWith(QLatin1String("WRONGPASS")))
        return unexpected(
            RedisError{RedisError::Kind::Auth,
                       command.compare("AUTH", Qt::CaseInsensitive) == 0
                           ? text
                           : QStringLiteral("%1 refused %2: %3")
                                 .arg(m_endpointName, QString::fromUtf8(command.toUpper()), text)});
    // A script's redis.call that the ACL refuses fails the script with the same NOPERM text.
    if (text.startsWith(QLatin1String("NOPERM")) || text.contains(QLatin1String(" NOPERM ")))
        return unexpected(
            RedisError{RedisError::Kind::NoPermission,
                       QStringLiteral("%1 may not run %2 on %3: %4")
                           .arg(m_user.isEmpty() ? QStringLiteral("the default user")
                                                 : QStringLiteral("user '%1'").arg(m_user),
                                QString::fromUtf8(command.toUpper()), m_endpointName, text)});
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
    if (m_broken || (!m_ctx && !m_tls))
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
    // "*3\r\n", "$5\r\n": the count written in place, not as a QByteArray of its own.
    const auto header = [&wire](char kind, qsizetype n) {
        char buf[24];
        buf[0] = kind;
        char *end = std::to_chars(buf + 1, buf + sizeof buf - 2, n).ptr;
        *end++ = '\r';
        *end++ = '\n';
        wire.append(buf, end - buf);
    };
    for (const RedisCommand &cmd : commands) {
        header('*', cmd.size());
        for (const QByteArray &arg : cmd) {
            header('$', arg.size());
            wire += arg;
            wire += "\r\n";
        }
    }
    if (m_tls) {
        auto written = m_tls->write(wire);
        if (!written) {
            m_broken = true;
            return unexpected(written.error());
        }
    } else {
        if (redisAppendFormattedCommand(m_ctx.get(), wire.constData(),
                                        static_cast<size_t>(wire.size())) != REDIS_OK)
            return unexpected(takeContextError());
        // Written now, not at the next read: the server starts on this batch while the caller
        // still reads the replies of an earlier one.
        int done = 0;
        while (!done)
            if (redisBufferWrite(m_ctx.get(), &done) != REDIS_OK)
                return unexpected(takeContextError());
    }
    ++m_roundTrips;
    for (const RedisCommand &cmd : commands)
        m_unanswered.push_back(cmd.isEmpty() ? QByteArray() : cmd.first());
    return commands.size();
}

Expected<QList<RedisResult>, RedisError> RedisConnection::receive(qsizetype count)
{
    QList<RedisResult> results;
    if (auto failed = receiveInto(count, results))
        return unexpected(*failed);
    return results;
}

std::optional<RedisError> RedisConnection::receiveInto(qsizetype count, QList<RedisResult> &results)
{
    if (m_broken || (!m_ctx && !m_tls))
        return discarded();
    const auto outstanding = static_cast<qsizetype>(m_unanswered.size());
    if (count > outstanding)
        return RedisError{
            RedisError::Kind::Protocol,
            QStringLiteral("asked for %1 replies, %2 outstanding").arg(count).arg(outstanding)};
    results.reserve(results.size() + count);
    for (qsizetype i = 0; i < count; ++i) {
        RedisValue value;
        if (m_tls) {
            auto read = m_tls->readReply();
            if (!read) {
                m_broken = true;
                return read.error();
            }
            value = std::move(*read);
        } else {
            void *raw = nullptr;
            if (redisGetReply(m_ctx.get(), &raw) != REDIS_OK)
                return takeContextError();
            ReplyPtr reply(raw);
            value = RedisValue::fromReply(static_cast<redisReply *>(raw));
        }
        const QByteArray name = std::move(m_unanswered.front());
        m_unanswered.pop_front();
        results.append(fromValue(std::move(value), name));
    }
    return std::nullopt;
}

QList<RedisResult> RedisConnection::exchange(const QList<RedisCommand> &commands)
{
    QList<RedisResult> results;
    const bool usable = !m_broken && (m_ctx || m_tls);
    auto sent = send(commands);
    std::optional<RedisError> failed;
    if (sent)
        failed = receiveInto(commands.size(), results);
    else
        failed = sent.error();
    if (!failed)
        return results;
    // A connection already discarded sent nothing; one that failed while writing or reading
    // may have delivered every command still unanswered.
    const RedisError rest =
        usable ? RedisError{RedisError::Kind::Unanswered,
                            QStringLiteral("no reply from %1 (%2): the command may have run")
                                .arg(m_endpointName, failed->message)}
               : *failed;
    while (results.size() < commands.size())
        results.append(unexpected(rest));
    return results;
}

} // namespace reclaim
