#include "fencing/redislock.h"

#include "fencing/lockscripts.h"

namespace reclaim {

RedisLock::RedisLock(RedisLink &link, QString lockKey, QList<QByteArray> generationCopies)
    : m_link(link), m_lockKey(lockKey.toUtf8()), m_generationKey(generationKeyFor(lockKey)),
      m_generationCopies(std::move(generationCopies))
{}

QByteArray RedisLock::generationKeyFor(const QString &lockKey)
{
    return FenceKeys::generationKeyFor(lockKey);
}

std::optional<RedisError> RedisLock::raiseCopies(RedisChannel &conn, qint64 generation)
{
    if (m_generationCopies.isEmpty())
        return std::nullopt;
    const LuaScript &raise = fencing::scripts::generationRaise();
    QList<RedisCommand> commands;
    for (const QByteArray &copy : m_generationCopies)
        commands << raise.evalsha({copy}, {QByteArray::number(generation)});
    const QList<RedisResult> results = raise.runEach(conn, commands);
    for (qsizetype i = 0; i < results.size(); ++i) {
        const QString copy = QString::fromUtf8(m_generationCopies.at(i));
        if (!results.at(i))
            return RedisError{results.at(i).error().kind,
                              QStringLiteral("cannot raise the fencing generation's copy %1 to "
                                             "%2: %3")
                                  .arg(copy)
                                  .arg(generation)
                                  .arg(results.at(i).error().message)};
        const qint64 now = results.at(i)->toInteger().value_or(-1);
        if (now != generation)
            return RedisError{RedisError::Kind::Reply,
                              QStringLiteral("the fencing generation's copy %1 holds %2, not this "
                                             "run's %3: a newer run has the lock")
                                  .arg(copy)
                                  .arg(now)
                                  .arg(generation)};
    }
    return std::nullopt;
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
        // Before anything is written: every queue slot's copy says this generation, so a stale
        // run's enqueue into any of them is refused from here on. A copy that cannot be raised
        // gives the lock back rather than run with a queue unfenced.
        if (auto failed = raiseCopies(**conn, a.generation)) {
            (void)fencing::scripts::lockRelease().runOne(**conn, {m_lockKey}, {token.toUtf8()});
            return unexpected(*failed);
        }
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
