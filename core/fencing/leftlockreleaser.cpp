#include "fencing/leftlockreleaser.h"

namespace reclaim {

Expected<LockAttempt, RedisError> LeftLockReleaser::acquire(const QString &token, qint64 ttlMs,
                                                            qint64 floor)
{
    releaseLeft();
    auto attempt = m_lock.acquire(token, ttlMs, floor);
    // No answer: the script may have run and set our token all the same.
    if (!attempt)
        remember(token);
    return attempt;
}

Expected<bool, RedisError> LeftLockReleaser::renew(const QString &token, qint64 ttlMs)
{
    return m_lock.renew(token, ttlMs);
}

Expected<bool, RedisError> LeftLockReleaser::release(const QString &token)
{
    auto released = m_lock.release(token);
    if (!released)
        remember(token);
    else
        m_left.removeAll(token);
    return released;
}

Expected<LockAttempt, RedisError> LeftLockReleaser::peek()
{
    return m_lock.peek();
}

void LeftLockReleaser::releaseLeft()
{
    // Released (true) or no longer ours (false): nothing is left either way. An error keeps the
    // token, and the ones after it untried, for the next attempt: during an outage each give-back
    // would wait out the Redis timeout in turn, 16 of them in front of every run.
    while (!m_left.isEmpty()) {
        if (!m_lock.release(m_left.first()))
            return;
        m_left.removeFirst();
    }
}

void LeftLockReleaser::remember(const QString &token)
{
    if (m_left.contains(token))
        return;
    m_left << token;
    while (m_left.size() > kMaxLeft)
        m_left.removeFirst();
}

} // namespace reclaim
