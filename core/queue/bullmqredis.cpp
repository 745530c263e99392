#include "queue/bullmqredis.h"

#include "redis/luascript.h"

namespace reclaim {

namespace {

QByteArray key(const QString &prefix, const QString &queue, const QString &suffix)
{
    return (prefix + QLatin1Char(':') + queue + QLatin1Char(':') + suffix).toUtf8();
}

RedisError badReply(const char *what)
{
    return RedisError{RedisError::Kind::Reply,
                      QStringLiteral("unexpected reply shape from %1").arg(QLatin1String(what))};
}

QString str(const RedisValue &v)
{
    return QString::fromUtf8(v.toBytes().value_or(QByteArray()));
}

qint64 num(const RedisValue &v)
{
    return v.toBytes().value_or(QByteArray()).toLongLong();
}

Expected<Sighting, RedisError> toSighting(const JobRef &job, const RedisValue &v)
{
    if (!v.isArray() || v.elements.size() < 2)
        return unexpected(badReply("probe"));
    Sighting s;
    s.queue = job.queue;
    s.jobId = job.jobId;
    s.how = FoundBy::Direct;
    s.state = str(v.elements.at(0));
    if (s.state.isEmpty())
        return unexpected(badReply("probe"));
    s.lockTtlMs = v.elements.at(1).toInteger().value_or(-2);
    if (v.elements.size() >= 9) {
        s.name = str(v.elements.at(2));
        s.data = v.elements.at(3).toBytes().value_or(QByteArray());
        s.timestamp = num(v.elements.at(4));
        s.processedOn = num(v.elements.at(5));
        s.finishedOn = num(v.elements.at(6));
        s.failedReason = str(v.elements.at(7));
        s.attempts = str(v.elements.at(8));
    }
    return s;
}

constexpr int kMaxDataBytes = 16384;
constexpr int kListPage = 10000;

} // namespace

BullmqRedis::BullmqRedis(RedisEndpoint endpoint, const RunSettings &settings)
    : m_endpoint(std::move(endpoint)), m_settings(settings)
{}

BullmqRedis::~BullmqRedis() = default;

qint64 BullmqRedis::roundTrips() const
{
    return m_closedRoundTrips + (m_conn ? m_conn->roundTrips() : 0);
}

Expected<RedisConnection *, RedisError> BullmqRedis::connection()
{
    if (m_conn && !m_conn->isBroken())
        return &*m_conn;
    if (m_conn) {
        m_closedRoundTrips += m_conn->roundTrips();
        m_conn.reset();
    }
    auto opened = RedisConnection::open(m_endpoint, m_settings.redisTimeout);
    if (!opened)
        return unexpected(opened.error());
    m_conn.emplace(std::move(*opened));
    return &*m_conn;
}

QList<Expected<Sighting, RedisError>> BullmqRedis::probe(const QList<JobRef> &jobs)
{
    QList<Expected<Sighting, RedisError>> out;
    out.reserve(jobs.size());
    const LuaScript &script = scripts::probe();
    const qsizetype batchSize = qMax(1, m_settings.probeBatchSize);
    const QByteArray walkLimit = QByteArray::number(m_settings.listProbeLimit);
    const QByteArray maxData = QByteArray::number(kMaxDataBytes);
    // The queue's own keys are the same for every job of a batch (usually one queue): build
    // them once per queue rather than eleven string joins per lookup.
    QString keysPrefix, keysQueue;
    QByteArray jobKeyPrefix;
    QList<QByteArray> queueKeys;
    auto commandsFor = [&](qsizetype start, qsizetype end) {
        QList<RedisCommand> commands;
        commands.reserve(end - start);
        for (qsizetype i = start; i < end; ++i) {
            const JobRef &j = jobs.at(i);
            if (queueKeys.isEmpty() || j.keyPrefix != keysPrefix || j.queue != keysQueue) {
                keysPrefix = j.keyPrefix;
                keysQueue = j.queue;
                jobKeyPrefix = key(j.keyPrefix, j.queue, QString());
                queueKeys.clear();
                for (const char *suffix : {"completed", "failed", "delayed", "prioritized",
                                           "waiting-children", "wait", "paused", "active", "meta"})
                    queueKeys << jobKeyPrefix + suffix;
            }
            const QByteArray jobKey = jobKeyPrefix + j.jobId.toUtf8();
            commands << script.evalsha({jobKey, jobKey + ":lock", queueKeys.at(0), queueKeys.at(1),
                                        queueKeys.at(2), queueKeys.at(3), queueKeys.at(4),
                                        queueKeys.at(5), queueKeys.at(6), queueKeys.at(7),
                                        queueKeys.at(8)},
                                       {j.jobId.toUtf8(), walkLimit, maxData});
        }
        return commands;
    };

    struct Batch
    {
        qsizetype start = 0;
        QList<RedisCommand> commands;
        std::optional<RedisError> sendError;
    };
    using Replies = Expected<QList<RedisResult>, RedisError>;
    auto settle = [&](const Batch &b, const Replies &replies) {
        for (qsizetype i = 0; i < b.commands.size(); ++i) {
            if (!replies) {
                out.append(unexpected(replies.error()));
                continue;
            }
            const RedisResult &r = replies->at(i);
            if (!r)
                out.append(unexpected(r.error()));
            else
                out.append(toSighting(jobs.at(b.start + i), *r));
        }
    };
    auto send = [&](Batch &b) {
        b.sendError.reset();
        auto conn = connection();
        if (!conn) {
            b.sendError = conn.error();
            return;
        }
        auto sent = (*conn)->send(b.commands);
        if (!sent)
            b.sendError = sent.error();
    };
    auto receive = [&](const Batch &b) -> Replies {
        if (b.sendError)
            return unexpected(*b.sendError);
        return m_conn->receive(b.commands.size());
    };
    auto noScript = [](const Replies &replies) {
        if (replies)
            for (const RedisResult &r : *replies)
                if (!r && r.error().kind == RedisError::Kind::NoScript)
                    return true;
        return false;
    };

    // Two batches in flight: Redis runs the newer one while this side reads and converts the
    // older. Every batch in flight was sent on the current connection, oldest first; nothing is
    // sent after a failed send until the batches in flight are settled.
    QList<Batch> flight;
    qsizetype next = 0;
    while (next < jobs.size() || !flight.isEmpty()) {
        while (flight.size() < 2 && next < jobs.size()) {
            if (!flight.isEmpty() && (flight.last().sendError || !m_conn || m_conn->isBroken()))
                break;
            Batch b;
            b.start = next;
            next = qMin(jobs.size(), next + batchSize);
            b.commands = commandsFor(b.start, next);
            if (out.isEmpty() && flight.isEmpty()) {
                // The first batch on its own: on a server that has not seen the script yet,
                // LuaScript::run loads it and runs the batch again.
                auto conn = connection();
                settle(b, conn ? script.run(**conn, b.commands) : Replies(unexpected(conn.error())));
                continue;
            }
            send(b);
            flight << b;
        }
        if (flight.isEmpty())
            continue;
        const Batch b = flight.takeFirst();
        Replies replies = receive(b);
        if (!replies) {
            // The connection is gone and so are the replies of the batch behind this one (or
            // it could not be sent). Lookups only read, so it goes again on a fresh connection;
            // this batch's lookups stay failed: UNKNOWN, as without the overlap.
            for (Batch &later : flight)
                send(later);
        } else if (noScript(replies)) {
            // The server lost its scripts (restart, SCRIPT FLUSH): drain what is in flight so
            // the connection is idle, then let LuaScript::run load the script and retry.
            QList<QPair<Batch, Replies>> drained{{b, replies}};
            while (!flight.isEmpty()) {
                const Batch later = flight.takeFirst();
                drained.append({later, receive(later)});
            }
            for (auto &[db, dr] : drained) {
                if (noScript(dr)) {
                    QList<qsizetype> missing;
                    QList<RedisCommand> retry;
                    for (qsizetype i = 0; i < dr->size(); ++i)
                        if (!dr->at(i) && dr->at(i).error().kind == RedisError::Kind::NoScript) {
                            missing << i;
                            retry << db.commands.at(i);
                        }
                    auto conn = connection();
                    const Replies again = conn ? script.run(**conn, retry) : Replies(unexpected(conn.error()));
                    for (qsizetype k = 0; k < missing.size(); ++k)
                        (*dr)[missing.at(k)] = again ? again->at(k) : RedisResult(unexpected(again.error()));
                }
                settle(db, dr);
            }
            continue;
        }
        settle(b, replies);
    }
    return out;
}

Expected<QSet<QString>, RedisError>
BullmqRedis::listMembers(const QString &keyPrefix, const QString &queue, const QString &list)
{
    const QByteArray listKey = key(keyPrefix, queue, list);
    QSet<QString> members;
    for (qint64 offset = 0;; offset += kListPage) {
        auto conn = connection();
        if (!conn)
            return unexpected(conn.error());
        auto r = (*conn)->command({QByteArrayLiteral("LRANGE"), listKey, QByteArray::number(offset),
                                   QByteArray::number(offset + kListPage - 1)});
        if (!r)
            return unexpected(r.error());
        if (!r->isArray())
            return unexpected(badReply("LRANGE"));
        for (const RedisValue &e : r->elements)
            members.insert(str(e));
        if (r->elements.size() < kListPage)
            return members;
    }
}

Expected<ScanPage, RedisError> BullmqRedis::scanPage(const QString &keyPrefix, const QString &queue,
                                                     const QString &state, qint64 offset, int count)
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    const bool isList = state == QLatin1String("wait") || state == QLatin1String("paused") ||
                        state == QLatin1String("active");
    auto r = scripts::scanPage().runOne(
        **conn, {key(keyPrefix, queue, state), key(keyPrefix, queue, QStringLiteral("meta"))},
        {isList ? QByteArrayLiteral("list") : QByteArrayLiteral("zset"), QByteArray::number(offset),
         QByteArray::number(offset + count - 1), key(keyPrefix, queue, QString())});
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 2 || (r->elements.size() - 2) % 2 != 0)
        return unexpected(badReply("scanpage"));
    ScanPage page;
    page.stateSize = r->elements.at(0).toInteger().value_or(0);
    page.queuePaused = r->elements.at(1).toInteger().value_or(0) == 1;
    for (qsizetype i = 2; i + 1 < r->elements.size(); i += 2) {
        ScanPage::Job job;
        job.id = str(r->elements.at(i));
        const RedisValue &data = r->elements.at(i + 1);
        if (!data.isNil())
            job.data = data.toBytes();
        page.jobs << job;
    }
    return page;
}

Expected<EnqueueOutcome, RedisError> BullmqRedis::enqueue(const JobRef &job, const QString &name,
                                                          const QByteArray &data,
                                                          qint64 timestampMs)
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    const auto k = [&](const char *s) {
        return key(job.keyPrefix, job.queue, QLatin1String(s));
    };
    auto r = scripts::enqueue().runOne(
        **conn,
        {k("wait"), k("paused"), k("meta"), k("id"), k("completed"), k("failed"), k("delayed"),
         k("prioritized"), k("waiting-children"), k("active"), k("events"), k("marker"),
         key(job.keyPrefix, job.queue, job.jobId)},
        {job.jobId.toUtf8(), name.toUtf8(), data, QByteArrayLiteral("{\"attempts\":1}"),
         QByteArray::number(timestampMs)});
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() != 2)
        return unexpected(badReply("enqueue"));
    EnqueueOutcome out;
    const QString what = str(r->elements.at(0));
    if (what == QLatin1String("enqueued")) {
        out.enqueued = true;
        out.replacedState = str(r->elements.at(1));
    } else {
        out.runnableState = str(r->elements.at(1));
    }
    return out;
}

Expected<LockAttempt, RedisError> BullmqRedis::acquire(const QString &token, qint64 ttlMs)
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    const QByteArray lockKey = m_settings.lockKey.toUtf8();
    auto r = scripts::lockAcquire().runOne(**conn, {lockKey, lockKey + ":generation"},
                                           {token.toUtf8(), QByteArray::number(ttlMs)});
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 2)
        return unexpected(badReply("lockacquire"));
    LockAttempt a;
    a.acquired = r->elements.at(0).toInteger().value_or(0) == 1;
    if (a.acquired) {
        a.generation = r->elements.at(1).toInteger().value_or(0);
        a.holder = token;
        a.holderTtlMs = ttlMs;
    } else {
        if (r->elements.size() < 4)
            return unexpected(badReply("lockacquire"));
        a.holder = str(r->elements.at(1));
        a.holderTtlMs = r->elements.at(2).toInteger().value_or(-2);
        a.generation = r->elements.at(3).toInteger().value_or(0);
    }
    return a;
}

Expected<bool, RedisError> BullmqRedis::renew(const QString &token, qint64 ttlMs)
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = scripts::lockRenew().runOne(**conn, {m_settings.lockKey.toUtf8()},
                                         {token.toUtf8(), QByteArray::number(ttlMs)});
    if (!r)
        return unexpected(r.error());
    return r->toInteger().value_or(0) == 1;
}

Expected<bool, RedisError> BullmqRedis::release(const QString &token)
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = scripts::lockRelease().runOne(**conn, {m_settings.lockKey.toUtf8()}, {token.toUtf8()});
    if (!r)
        return unexpected(r.error());
    return r->toInteger().value_or(0) == 1;
}

Expected<LockAttempt, RedisError> BullmqRedis::peek()
{
    auto conn = connection();
    if (!conn)
        return unexpected(conn.error());
    const QByteArray lockKey = m_settings.lockKey.toUtf8();
    auto r = (*conn)->pipeline({{QByteArrayLiteral("GET"), lockKey},
                                {QByteArrayLiteral("PTTL"), lockKey},
                                {QByteArrayLiteral("GET"), lockKey + ":generation"}});
    if (!r)
        return unexpected(r.error());
    for (const RedisResult &x : *r)
        if (!x)
            return unexpected(x.error());
    LockAttempt a;
    a.holder = str(*r->at(0));
    a.holderTtlMs = r->at(1)->toInteger().value_or(-2);
    a.generation = r->at(2)->toInteger().value_or(0);
    return a;
}

} // namespace reclaim
