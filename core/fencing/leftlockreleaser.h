// The recovery lock, remembering a token it may still hold and giving it back before it tries
// again. A release that met a failover or a paused server, or an acquire whose answer never came,
// can leave our lock in Redis; the same process's next acquire would then find it "held" (by
// itself) and every run would be skipped until the lock's TTL ran out (10 minutes by default).
// Whichever runs next (a run, an approval, the console's one-by-one approval) first releases that
// token by compare-and-delete, so a lock another runner holds by then is never touched.
#pragma once

#include "ports/recoverylock.h"

#include <QStringList>

namespace reclaim {

class LeftLockReleaser final : public RecoveryLock
{
public:
    explicit LeftLockReleaser(RecoveryLock &lock) : m_lock(lock) {}
    Q_DISABLE_COPY_MOVE(LeftLockReleaser)

    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs,
                                              qint64 floor) override;
    Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) override;
    Expected<bool, RedisError> release(const QString &token) override;
    Expected<LockAttempt, RedisError> peek() override;

    // Releases every token left so far; what still gets no answer is kept for the next try.
    void releaseLeft();
    // The tokens this process may still hold in Redis, oldest first.
    const QStringList &leftTokens() const { return m_left; }

private:
    void remember(const QString &token);

    // Lock tokens are unique per attempt, and a lock outlives none of them by more than its
    // TTL: a handful is plenty even when every call of a long outage left one.
    static constexpr qsizetype kMaxLeft = 16;

    RecoveryLock &m_lock;
    QStringList m_left;
};

} // namespace reclaim
