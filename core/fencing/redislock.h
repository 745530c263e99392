// The recovery lock port on Redis: SET NX PX with a token, a generation from INCR taken in the
// same script, compare-then-expire renewal and compare-and-delete release (core/fencing/lua).
#pragma once

#include "config/fencekeys.h"
#include "ports/recoverylock.h"
#include "redis/redislink.h"

namespace reclaim {

class RedisLock final : public RecoveryLock
{
public:
    // `lockKey` ("lock:job-recovery"); the generation counter is "<lockKey>:generation".
    // `generationCopies`: on a Redis Cluster, the copies of the generation in the queues' slots
    // (config/fencekeys.h), raised as the lock is taken; none on one node.
    RedisLock(RedisLink &link, QString lockKey, QList<QByteArray> generationCopies = {});
    Q_DISABLE_COPY_MOVE(RedisLock)

    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs,
                                              qint64 floor) override;
    Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) override;
    Expected<bool, RedisError> release(const QString &token) override;
    Expected<LockAttempt, RedisError> peek() override;

    // The fencing generation counter of `lockKey`: the queue writer checks it inside its own
    // script, so a run whose generation is no longer current cannot enqueue.
    static QByteArray generationKeyFor(const QString &lockKey);

private:
    RedisLink &m_link;
    QByteArray m_lockKey;
    QByteArray m_generationKey;
    QList<QByteArray> m_generationCopies;

    // Raises every copy to `generation`; an error when one cannot be raised, or already holds a
    // newer generation (this run is then stale before it wrote anything).
    std::optional<RedisError> raiseCopies(RedisChannel &conn, qint64 generation);
};

} // namespace reclaim
