#include "fencing/redislock.h"

#include "fencing/lockscripts.h"

namespace reclaim {

RedisLock::RedisLock(RedisLink &link, QString lockKey)
    : m_link(link), m_lockKey(lockKey.toUtf8()), m_generationKey(generationKeyFor(lockKey))
{}

QByteArray RedisLock::generationKeyFor(const QString &lockKey)
{
    return lockKey.toUtf8() + ":generation";
}

Expected<LockAttempt, RedisError> RedisLock::acquire(const QString &token, qint64 ttlMs,
                                                     qint64 floor)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = fencing::scripts::lockAcquire().runOne(
        **conn, {m_lockKey, m_generationKey},
        {token.toUtf8(), QByteArray::number(ttlMs), QByteArray::number(floor)});
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 3)
        return unexpected(RedisError::unexpectedReply(QStringLiteral("lockacquire")));
    LockAttempt a;
    a.acquired = r->elements.at(0).toInteger().value_or(0) == 1;
    if (a.acquired) {
        a.generation = r->elements.at(1).toInteger().value_or(0);
        a.holder = token;
        a.holderTtlMs = ttlMs;
        a.raisedFrom = r->elements.at(2).toInteger().value_or(0);
    } else {
        if (r->elements.size() < 4)
            return unexpected(RedisError::unexpectedReply(QStringLiteral("lockacquire")));
        a.holder = r->elements.at(1).toText();
        a.holderTtlMs = r->elements.at(2).toInteger().value_or(-2);
        a.generation = r->elements.at(3).toInteger().value_or(0);
    }
    return a;
}

Expected<bool, RedisError> RedisLock::renew(const QString &token, qint64 ttlMs)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = fencing::scripts::lockRenew().runOne(**conn, {m_lockKey},
                                                  {token.toUtf8(), QByteArray::number(ttlMs)});
    if (!r)
        return unexpected(r.error());
    return r->toInteger().value_or(0) == 1;
}

Expected<bool, RedisError> RedisLock::release(const QString &token)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = fencing::scripts::lockRelease().runOne(**conn, {m_lockKey}, {token.toUtf8()});
    if (!r)
        return unexpected(r.error());
    return r->toInteger().value_or(0) == 1;
}

Expected<LockAttempt, RedisError> RedisLock::peek()
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = (*conn)->pipeline({{QByteArrayLiteral("GET"), m_lockKey},
                                {QByteArrayLiteral("PTTL"), m_lockKey},
                                {QByteArrayLiteral("GET"), m_generationKey}});
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
