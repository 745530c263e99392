// Our hold on the recovery lock: a token naming us, a fencing generation, renewal before expiry.
// A stage over the RecoveryLock port; the fence it feeds is checked by every write (pgfence.h).
#pragma once

#include "ports/recoverylock.h"

#include <QString>
#include <functional>

namespace reclaim {

class LockLease final
{
public:
    // Milliseconds on a monotonic clock. Injectable so that tests can step time exactly instead
    // of sleeping; the default is the process's steady clock.
    using Clock = std::function<qint64()>;

    LockLease(RecoveryLock &lock, qint64 ttlMs, Clock clock = {});
    Q_DISABLE_COPY_MOVE(LockLease)

    // `floor`: PostgreSQL's fence for this lock key (RecoveryLock::acquire).
    Expected<LockAttempt, RedisError> acquire(qint64 floor = 0);

    // Before every write: renews by compare-then-expire once a third of the TTL has passed.
    // False once the lock was lost (renewal refused or failed, or the TTL ran out unrenewed);
    // then it stays false and the run issues no more writes.
    bool confirm();
    // confirm() without a call to Redis, for a write made while our connection has other
    // commands in flight (actionexecutor.h): false once the lock was lost or its TTL ran out
    // since it was last confirmed; never renews.
    bool confirmWithoutRenewing();

    Expected<bool, RedisError> release();

    bool held() const { return m_acquired && !m_lost; }
    bool lost() const { return m_lost; }
    const QString &token() const { return m_token; }
    qint64 generation() const { return m_generation; }
    QString lostReason() const { return m_lostReason; }

private:
    RecoveryLock &m_lock;
    qint64 m_ttlMs;
    QString m_token;
    qint64 m_generation = 0;
    bool m_acquired = false;
    bool m_lost = false;
    QString m_lostReason;
    Clock m_clock;
    qint64 m_confirmedAt = 0; // m_clock() when the lock was last known to be ours
};

} // namespace reclaim
