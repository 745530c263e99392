// The recovery lock port: one holder at a time, with a fencing generation that only grows.
#pragma once

#include "ports/rediserror.h"
#include "util/expected.h"

#include <QString>

namespace reclaim {

struct LockAttempt
{
    bool acquired = false;
    qint64 generation = 0; // ours when acquired, the current one when held
    QString holder;        // the holder's token when held
    qint64 holderTtlMs = -2;
    // When acquired: 0, or the generation counter's value that was not above the floor (a
    // flushed or new Redis) before the acquire raised it past the floor.
    qint64 raisedFrom = 0;
};

class RecoveryLock
{
public:
    virtual ~RecoveryLock() = default;
    // `floor`: the highest generation that ever started a run under this lock (PostgreSQL's
    // fence); a new generation is always above it, even when the counter was lost.
    virtual Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs,
                                                      qint64 floor) = 0;
    // True if the lock still held our token and was extended.
    virtual Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) = 0;
    // True if our token was deleted; false if the lock was no longer ours (left alone).
    virtual Expected<bool, RedisError> release(const QString &token) = 0;
    // The current holder's token and TTL, without taking anything.
    virtual Expected<LockAttempt, RedisError> peek() = 0;
};

} // namespace reclaim
