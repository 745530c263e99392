#include "queue/bullmqredis.h"

#include "queue/probetrips.h"
#include "redis/luascript.h"

#include <algorithm>

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
    const QList<ProbeTrip> trips = buildProbeTrips(jobs, m_settings);
    using Replies = Expected<QList<RedisResult>, RedisError>;

    // One trip in flight ahead of the one being read: Redis runs the next batch while this side
    // reads the replies of the last. Lookups only read, so a trip whose connection broke or
    // whose script the server had lost simply goes again.
    std::optional<RedisError> aheadError;
    bool aheadSent = false;
    auto send = [&](const ProbeTrip &trip) -> std::optional<RedisError> {
        auto conn = connection();
        if (!conn)
            return conn.error();
        auto sent = (*conn)->send(trip.commands);
        if (!sent)
            return sent.error();
        return std::nullopt;
    };
    auto lostScript = [](const Replies &replies) {
        return replies && std::any_of(replies->begin(), replies->end(), [](const RedisResult &r) {
                   return !r && r.error().kind == RedisError::Kind::NoScript;
               });
    };
    for (qsizetype t = 0; t < trips.size(); ++t) {
        const ProbeTrip &trip = trips.at(t);
        std::optional<RedisError> sendError = aheadSent ? aheadError : send(trip);
        aheadSent = false;
        if (!sendError && t + 1 < trips.size()) {
            aheadError = send(trips.at(t + 1));
            aheadSent = !aheadError;
        }
        Replies replies =
            sendError ? Replies(unexpected(*sendError)) : m_conn->receive(trip.commands.size());
        if (!replies) {
            aheadSent = false; // it went out on the broken connection: send it again
        } else if (lostScript(replies)) {
            // A fresh server, or one that restarted or flushed its scripts: let the connection go
            // idle, then LuaScript::run loads the script and runs this trip again.
            if (aheadSent)
                (void)m_conn->receive(trips.at(t + 1).commands.size());
            aheadSent = false;
            auto conn = connection();
            replies = conn ? scripts::probe().run(**conn, trip.commands)
                           : Replies(unexpected(conn.error()));
        }
        readProbeTrip(trip, replies, jobs, out);
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
            members.insert(e.toText());
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
        job.id = r->elements.at(i).toText();
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
    const QString what = r->elements.at(0).toText();
    if (what == QLatin1String("enqueued")) {
        out.enqueued = true;
        out.replacedState = r->elements.at(1).toText();
    } else {
        out.runnableState = r->elements.at(1).toText();
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
        a.holder = r->elements.at(1).toText();
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
    a.holder = r->at(0)->toText();
    a.holderTtlMs = r->at(1)->toInteger().value_or(-2);
    a.generation = r->at(2)->toInteger().value_or(0);
    return a;
}

} // namespace reclaim
