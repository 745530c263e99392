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

// The probe answers nine values per job: state, lock PTTL, name, data, timestamp, processedOn,
// finishedOn, failedReason, attempts.
constexpr qsizetype kProbeFields = 9;

Expected<Sighting, RedisError> toSighting(const JobRef &job, const QList<RedisValue> &values,
                                          qsizetype at)
{
    Sighting s;
    s.queue = job.queue;
    s.jobId = job.jobId;
    s.how = FoundBy::Direct;
    s.state = str(values.at(at));
    if (s.state.isEmpty())
        return unexpected(badReply("probe"));
    // The script could not look at this one job (its key holds something else, say): the
    // server's message, for this candidate alone.
    if (s.state == QLatin1String("error"))
        return unexpected(RedisError{RedisError::Kind::Server, str(values.at(at + 2))});
    s.lockTtlMs = values.at(at + 1).toInteger().value_or(-2);
    s.name = str(values.at(at + 2));
    s.data = values.at(at + 3).toBytes().value_or(QByteArray());
    s.timestamp = num(values.at(at + 4));
    s.processedOn = num(values.at(at + 5));
    s.finishedOn = num(values.at(at + 6));
    s.failedReason = str(values.at(at + 7));
    s.attempts = str(values.at(at + 8));
    return s;
}

constexpr int kMaxDataBytes = 16384;
constexpr int kListPage = 10000;
// Ids per probe call. A call holds Redis for its whole batch: about 10 us per id plus one walk
// of each list's tail, some 10 ms for 1,000 ids at worst, the order of BullMQ's own batch scripts
// (clean, obliterate: 1,000 per call). Fewer ids per call walk the same tails more often.
constexpr qsizetype kIdsPerCall = 1000;

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
    const qsizetype perTrip = qMax(1, m_settings.probeBatchSize);
    const QByteArray walkLimit = QByteArray::number(m_settings.listProbeLimit);
    const QByteArray maxData = QByteArray::number(kMaxDataBytes);

    // One script call per run of jobs in the same queue, at most kIdsPerCall ids each; the calls
    // of up to probeBatchSize jobs go in one pipelined round trip.
    struct Call
    {
        qsizetype start = 0;
        qsizetype count = 0;
    };
    QString keysPrefix, keysQueue;
    QList<QByteArray> queueKeys;
    QByteArray jobKeyPrefix;
    for (qsizetype tripStart = 0; tripStart < jobs.size(); tripStart += perTrip) {
        const qsizetype tripEnd = qMin(jobs.size(), tripStart + perTrip);
        QList<Call> calls;
        QList<RedisCommand> commands;
        for (qsizetype i = tripStart; i < tripEnd;) {
            const JobRef &first = jobs.at(i);
            if (queueKeys.isEmpty() || first.keyPrefix != keysPrefix || first.queue != keysQueue) {
                keysPrefix = first.keyPrefix;
                keysQueue = first.queue;
                jobKeyPrefix = key(first.keyPrefix, first.queue, QString());
                queueKeys.clear();
                for (const char *suffix : {"completed", "failed", "delayed", "prioritized",
                                           "waiting-children", "wait", "paused", "active", "meta"})
                    queueKeys << jobKeyPrefix + suffix;
            }
            Call call{i, 0};
            QList<QByteArray> args{jobKeyPrefix, walkLimit, maxData};
            while (i < tripEnd && call.count < kIdsPerCall && jobs.at(i).queue == keysQueue &&
                   jobs.at(i).keyPrefix == keysPrefix) {
                args << jobs.at(i).jobId.toUtf8();
                ++call.count;
                ++i;
            }
            calls << call;
            commands << script.evalsha(queueKeys, args);
        }

        auto conn = connection();
        const Expected<QList<RedisResult>, RedisError> replies =
            conn ? script.run(**conn, commands)
                 : Expected<QList<RedisResult>, RedisError>(unexpected(conn.error()));
        for (qsizetype c = 0; c < calls.size(); ++c) {
            const Call &call = calls.at(c);
            const RedisResult *reply = replies ? &replies->at(c) : nullptr;
            const bool wellFormed = reply && *reply && (*reply)->isArray() &&
                                    (*reply)->elements.size() == call.count * kProbeFields;
            for (qsizetype k = 0; k < call.count; ++k) {
                const JobRef &job = jobs.at(call.start + k);
                if (!replies)
                    out.append(unexpected(replies.error()));
                else if (!*reply)
                    out.append(unexpected(reply->error()));
                else if (!wellFormed)
                    out.append(unexpected(badReply("probe")));
                else
                    out.append(toSighting(job, (*reply)->elements, k * kProbeFields));
            }
        }
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
