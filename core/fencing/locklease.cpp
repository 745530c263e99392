#include "fencing/locklease.h"

#include "domain/locktoken.h"

#include <chrono>

namespace reclaim {

namespace {

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

LockLease::LockLease(RecoveryLock &lock, qint64 ttlMs, Clock clock)
    : m_lock(lock), m_ttlMs(ttlMs), m_clock(clock ? std::move(clock) : Clock(steadyMs))
{}

Expected<LockAttempt, RedisError> LockLease::acquire(qint64 floor)
{
    m_token = makeLockToken();
    auto attempt = m_lock.acquire(m_token, m_ttlMs, floor);
    if (attempt && attempt->acquired) {
        m_acquired = true;
        m_generation = attempt->generation;
        m_confirmedAt = m_clock();
    }
    return attempt;
}

bool LockLease::confirmWithoutRenewing()
{
    if (!m_acquired || m_lost)
        return false;
    if (m_clock() - m_confirmedAt >= m_ttlMs) {
        m_lost = true;
        m_lostReason =
            QStringLiteral("the lock's TTL of %1 ms ran out before it was renewed").arg(m_ttlMs);
        return false;
    }
    return true;
}

bool LockLease::confirm()
{
    if (!confirmWithoutRenewing())
        return false;
    const qint64 askedAt = m_clock();
    if (askedAt - m_confirmedAt < m_ttlMs / 3)
        return true;
    auto renewed = m_lock.renew(m_token, m_ttlMs);
    if (!renewed) {
        m_lost = true;
        m_lostReason =
            QStringLiteral("renewing the lock failed: %1").arg(renewed.error().describe());
        return false;
    }
    if (!*renewed) {
        m_lost = true;
        m_lostReason = QStringLiteral("the lock no longer holds our token");
        return false;
    }
    // Count from when we asked, not when we heard back: the server may have expired it sooner.
    m_confirmedAt = askedAt;
    return true;
}

Expected<bool, RedisError> LockLease::release()
{
    if (!m_acquired)
        return false;
    m_acquired = false;
    return m_lock.release(m_token);
}

} // namespace reclaim
