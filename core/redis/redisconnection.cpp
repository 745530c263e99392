#include "redis/redisconnection.h"

#include "redis/hostresolver.h"
#include "redis/tlsstream.h"

#include <QStringList>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <poll.h>

namespace reclaim {

namespace {

// What is left of `deadline`, for hiredis' connect; at least 1 ms, as 0 would mean "no bound".
timeval remainingTimeval(const QDeadlineTimer &deadline)
{
    const qint64 ms = std::max<qint64>(1, deadline.remainingTime());
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
    return tv;
}

enum class Ready
{
    Yes,
    Deadline,
    Failed,
};

// Waits until `fd` is ready for `events` (or has an error or hang-up for the next read or write
// to report) or `deadline` passes.
Ready waitFor(int fd, short events, const QDeadlineTimer &deadline)
{
    for (;;) {
        const qint64 left = deadline.remainingTime();
        if (left == 0)
            return Ready::Deadline;
        pollfd p{fd, events, 0};
        const int timeoutMs = left < 0 ? -1 : static_cast<int>(std::min<qint64>(left, INT_MAX));
        const int rc = poll(&p, 1, timeoutMs);
        if (rc > 0)
            return Ready::Yes;
        if (rc == 0)
            continue; // the deadline, or poll()'s rounding: remainingTime() decides
        if (errno != EINTR)
            return Ready::Failed;
    }
}

// hiredis connects in blocking mode and then reads and writes with blocking calls; from here on
// its socket is non-blocking and every wait is ours (redisBufferRead/Write treat EAGAIN as
// "try again later" once REDIS_BLOCK is off).
bool makeNonBlocking(redisContext *ctx)
{
    const int flags = fcntl(ctx->fd, F_GETFL);
    if (flags < 0 || fcntl(ctx->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return false;
    ctx->flags &= ~REDIS_BLOCK;
    return true;
}

} // namespace

void RedisConnection::ContextDeleter::operator()(redisContext *c) const
{
    redisFree(c);
}

RedisConnection::RedisConnection(std::unique_ptr<redisContext, ContextDeleter> ctx,
                                 std::unique_ptr<TlsStream> tls, QString endpointName, QString user,
                                 std::chrono::milliseconds timeout)
    : m_ctx(std::move(ctx)), m_tls(std::move(tls)), m_endpointName(std::move(endpointName)),
      m_user(std::move(user)), m_timeout(timeout)
{}

RedisConnection::RedisConnection(RedisConnection &&) noexcept = default;
RedisConnection &RedisConnection::operator=(RedisConnection &&) noexcept = default;
RedisConnection::~RedisConnection() = default;

Expected<RedisConnection, RedisError> RedisConnection::open(const RedisEndpoint &endpoint,
                                                            std::chrono::milliseconds timeout)
{
    const QDeadlineTimer deadline(timeout);
    std::unique_ptr<TlsStream> stream;
    std::unique_ptr<redisContext, ContextDeleter> ctx;
    if (endpoint.tls.enabled) {
        auto opened = TlsStream::open(endpoint, deadline);
        if (!opened)
            return unexpected(opened.error());
        stream = std::move(*opened);
    } else {
        auto opened = connectSocket(endpoint, deadline);
        if (!opened)
            return unexpected(opened.error());
        ctx = std::move(*opened);
    }
    RedisConnection conn(std::move(ctx), std::move(stream), endpoint.serverName(), endpoint.user,
                         timeout);
    auto ready = conn.authenticate(endpoint, deadline);
    if (!ready)
        return unexpected(ready.error());
    return conn;
}

// A TCP connection to each address the name stands for in turn, or the Unix socket.
Expected<std::unique_ptr<redisContext, RedisConnection::ContextDeleter>, RedisError>
RedisConnection::connectSocket(const RedisEndpoint &endpoint, const QDeadlineTimer &deadline)
{
    const QString name = endpoint.serverName();
    QStringList addresses;
    if (!endpoint.isSocket()) {
        auto resolved = resolveHost(endpoint.host, name, deadline);
        if (!resolved)
            return unexpected(resolved.error());
        addresses = std::move(*resolved);
    }
    RedisError failed{RedisError::Kind::Connect, QStringLiteral("cannot connect to %1").arg(name)};
    for (qsizetype i = 0; i < std::max<qsizetype>(1, addresses.size()); ++i) {
        if (deadline.hasExpired())
            return unexpected(
                RedisError{RedisError::Kind::Timeout,
                           QStringLiteral("cannot connect to %1: no answer in time").arg(name)});
        std::unique_ptr<redisContext, ContextDeleter> ctx(
            endpoint.isSocket()
                ? redisConnectUnixWithTimeout(endpoint.socketPath.toLocal8Bit().constData(),
                                              remainingTimeval(deadline))
                : redisConnectWithTimeout(addresses.at(i).toLatin1().constData(), endpoint.port,
                                          remainingTimeval(deadline)));
        if (!ctx)
            return unexpected(
                RedisError{RedisError::Kind::Connect,
                           QStringLiteral("cannot allocate a connection to %1").arg(name)});
        if (ctx->err) {
            const bool timedOut =
                ctx->err == REDIS_ERR_IO && (errno == ETIMEDOUT || errno == EINPROGRESS);
            failed = RedisError{timedOut ? RedisError::Kind::Timeout : RedisError::Kind::Connect,
                                QStringLiteral("cannot connect to %1: %2")
                                    .arg(name, QString::fromLocal8Bit(ctx->errstr))};
            continue;
        }
        if (!makeNonBlocking(ctx.get()))
            return unexpected(
                RedisError{RedisError::Kind::Connect,
                           QStringLiteral("cannot set up the connection to %1").arg(name)});
        ctx->reader->fn = RedisValue::readerFunctions(); // before anything is read
        return ctx;
    }
    return unexpected(failed);
}

// AUTH and SELECT, and for TLS a first round trip in any case: a server that requires a client
// certificate accepts the handshake (TLS 1.3 finishes it first) and ends the session at the
// first read, which must be a TLS error at connect, not an I/O error at the first lookup.
Expected<bool, RedisError> RedisConnection::authenticate(const RedisEndpoint &endpoint,
                                                         const QDeadlineTimer &deadline)
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
        auto r = commandUntil(auth, deadline);
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
        auto r = commandUntil({QByteArrayLiteral("PING")}, deadline);
        if (!r)
            return unexpected(asTls(r.error()));
    }
    if (endpoint.database != 0) {
        auto r = commandUntil({QByteArrayLiteral("SELECT"), QByteArray::number(endpoint.database)},
                              deadline);
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

RedisError RedisConnection::timedOut()
{
    m_broken = true;
    return {RedisError::Kind::Timeout, QStringLiteral("%1 did not answer within %2 ms")
                                           .arg(m_endpointName)
                                           .arg(m_timeout.count())};
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
    return commandUntil(argv, QDeadlineTimer(m_timeout));
}

RedisResult RedisConnection::commandUntil(const RedisCommand &argv, const QDeadlineTimer &deadline)
{
    auto sent = sendUntil({argv}, deadline);
    if (!sent)
        return unexpected(sent.error());
    QList<RedisResult> results;
    if (auto failed = receiveInto(1, results, deadline))
        return unexpected(*failed);
    return results.first();
}

Expected<QList<RedisResult>, RedisError>
RedisConnection::pipeline(const QList<RedisCommand> &commands)
{
    const QDeadlineTimer deadline(m_timeout);
    auto sent = sendUntil(commands, deadline);
    if (!sent)
        return unexpected(sent.error());
    QList<RedisResult> results;
    if (auto failed = receiveInto(commands.size(), results, deadline))
        return unexpected(*failed);
    return results;
}

RedisError RedisConnection::discarded() const
{
    return RedisError{
        RedisError::Kind::Closed,
        QStringLiteral("connection to %1 was discarded after an error").arg(m_endpointName)};
}

Expected<qsizetype, RedisError> RedisConnection::send(const QList<RedisCommand> &commands)
{
    return sendUntil(commands, QDeadlineTimer(m_timeout));
}

Expected<qsizetype, RedisError> RedisConnection::sendUntil(const QList<RedisCommand> &commands,
                                                           const QDeadlineTimer &deadline)
{
    if (m_broken || (!m_ctx && !m_tls))
        return unexpected(discarded());
    // The whole batch encoded once, in the same RESP bytes redisAppendCommandArgv would write:
    // hiredis' formatter costs more per lookup than everything else on this side.
    // Sized for the longest headers first, then written through a pointer: a batch of
    // enqueues is half a million arguments, and QByteArray::append's checks cost more per
    // argument than the copy.
    constexpr qsizetype kHeaderRoom = 24; // "$" or "*", up to 20 digits, "\r\n"
    qsizetype size = 0;
    for (const RedisCommand &cmd : commands) {
        size += kHeaderRoom;
        for (const QByteArray &arg : cmd)
            size += kHeaderRoom + arg.size() + 2;
    }
    QByteArray wire(size, Qt::Uninitialized);
    char *out = wire.data();
    // "*3\r\n", "$5\r\n": the count written in place.
    const auto header = [&out](char kind, qsizetype n) {
        *out++ = kind;
        out = std::to_chars(out, out + kHeaderRoom - 3, n).ptr;
        *out++ = '\r';
        *out++ = '\n';
    };
    for (const RedisCommand &cmd : commands) {
        header('*', cmd.size());
        for (const QByteArray &arg : cmd) {
            header('$', arg.size());
            if (!arg.isEmpty())
                std::memcpy(out, arg.constData(), static_cast<size_t>(arg.size()));
            out += arg.size();
            *out++ = '\r';
            *out++ = '\n';
        }
    }
    wire.truncate(out - wire.constData());
    if (m_tls) {
        auto written = m_tls->write(wire, deadline);
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
        for (;;) {
            if (redisBufferWrite(m_ctx.get(), &done) != REDIS_OK)
                return unexpected(takeContextError());
            if (done)
                break;
            const Ready ready = waitFor(m_ctx->fd, POLLOUT, deadline);
            if (ready == Ready::Deadline)
                return unexpected(timedOut());
            if (ready == Ready::Failed)
                return unexpected(takeContextError());
        }
    }
    ++m_roundTrips;
    for (const RedisCommand &cmd : commands)
        m_unanswered.push_back(cmd.isEmpty() ? QByteArray() : cmd.first());
    return commands.size();
}

Expected<QList<RedisResult>, RedisError> RedisConnection::receive(qsizetype count)
{
    QList<RedisResult> results;
    if (auto failed = receiveInto(count, results, QDeadlineTimer(m_timeout)))
        return unexpected(*failed);
    return results;
}

Expected<RedisValue, RedisError> RedisConnection::readSocketReply(const QDeadlineTimer &deadline)
{
    for (;;) {
        void *raw = nullptr;
        if (redisGetReplyFromReader(m_ctx.get(), &raw) != REDIS_OK)
            return unexpected(takeContextError());
        if (raw)
            return RedisValue::takeReply(raw);
        const Ready ready = waitFor(m_ctx->fd, POLLIN, deadline);
        if (ready == Ready::Deadline)
            return unexpected(timedOut());
        if (ready == Ready::Failed || redisBufferRead(m_ctx.get()) != REDIS_OK)
            return unexpected(takeContextError());
    }
}

std::optional<RedisError> RedisConnection::receiveInto(qsizetype count, QList<RedisResult> &results,
                                                       const QDeadlineTimer &deadline)
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
        auto read = m_tls ? m_tls->readReply(deadline) : readSocketReply(deadline);
        if (!read) {
            m_broken = true;
            return read.error();
        }
        RedisValue value = std::move(*read);
        const QByteArray name = std::move(m_unanswered.front());
        m_unanswered.pop_front();
        results.append(fromValue(std::move(value), name));
    }
    return std::nullopt;
}

QList<RedisResult> RedisConnection::exchange(const QList<RedisCommand> &commands)
{
    // Both halves within one timeout.
    const QDeadlineTimer deadline(m_timeout);
    return receiveWritesUntil(sendWritesUntil(commands, deadline), deadline);
}

WritesInFlight RedisConnection::sendWrites(const QList<RedisCommand> &commands)
{
    return sendWritesUntil(commands, QDeadlineTimer(m_timeout));
}

QList<RedisResult> RedisConnection::receiveWrites(const WritesInFlight &inFlight)
{
    // The caller did other work since the batch went out: the wait for its replies starts now.
    return receiveWritesUntil(inFlight, QDeadlineTimer(m_timeout));
}

WritesInFlight RedisConnection::sendWritesUntil(const QList<RedisCommand> &commands,
                                                const QDeadlineTimer &deadline)
{
    WritesInFlight inFlight;
    inFlight.count = commands.size();
    // A connection already discarded sends nothing; one that fails while writing may have
    // delivered any of the commands.
    inFlight.mayHaveRun = !m_broken && (m_ctx || m_tls);
    auto sent = sendUntil(commands, deadline);
    if (!sent)
        inFlight.sendError = sent.error();
    return inFlight;
}

QList<RedisResult> RedisConnection::receiveWritesUntil(const WritesInFlight &inFlight,
                                                       const QDeadlineTimer &deadline)
{
    QList<RedisResult> results;
    std::optional<RedisError> failed = inFlight.sendError;
    if (!failed)
        failed = receiveInto(inFlight.count, results, deadline);
    if (!failed)
        return results;
    // The replies read before the failure stand; every command after them may have run.
    const RedisError rest =
        inFlight.mayHaveRun
            ? RedisError{RedisError::Kind::Unanswered,
                         QStringLiteral("no reply from %1 (%2): the command may have run")
                             .arg(m_endpointName, failed->message)}
            : *failed;
    while (results.size() < inFlight.count)
        results.append(unexpected(rest));
    return results;
}

} // namespace reclaim
