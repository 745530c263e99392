// Our hold on the recovery lock: a token naming us, a fencing generation, renewal before expiry.
#pragma once

#include "queue/queueports.h"

#include <QElapsedTimer>
#include <QString>

namespace reclaim {

// "reclaim;host=<host>;pid=<pid>;since=<ISO time>;nonce=<hex>": unique per acquisition, and
// an operator reading it in Redis knows who holds the lock.
QString makeLockToken();

struct LockHolder
{
    QString host;
    qint64 pid = 0;
    QString since;
    bool parsed = false;
};
LockHolder parseLockToken(const QString &token);

class LockLease final
{
public:
    LockLease(RecoveryLock &lock, qint64 ttlMs);
    Q_DISABLE_COPY_MOVE(LockLease)

    Expected<LockAttempt, RedisError> acquire();

    // Before every write: renews by compare-then-expire once a third of the TTL has passed.
    // False once the lock was lost (renewal refused or failed, or the TTL ran out unrenewed);
    // then it stays false and the run issues no more writes.
    bool confirm();

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
    QElapsedTimer m_sinceConfirmed;
};

} // namespace reclaim
