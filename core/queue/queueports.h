// What the recovery core needs from the queue: look (inspector), write (writer), and lock.
#pragma once

#include "recovery/verdict.h"
#include "redis/rediserror.h"
#include "util/expected.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <optional>

namespace reclaim {

struct JobRef
{
    QString keyPrefix; // "bull"
    QString queue;
    QString jobId;
};

struct ScanPage
{
    qint64 stateSize = 0;     // length of the list / cardinality of the set when the page was read
    bool queuePaused = false; // the queue's meta says paused: its waiting jobs are "paused"
    struct Job
    {
        QString id;
        std::optional<QByteArray> data; // nullopt: the id had no job hash
    };
    QList<Job> jobs;
};

class QueueInspector
{
public:
    virtual ~QueueInspector() = default;

    // Direct lookups, batched into as few round trips as possible. One result per request, in
    // order; a failed lookup is an error, never a "missing" sighting. A sighting whose state is
    // "list-unresolved" needs listMembers() to decide.
    virtual QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs) = 0;

    // Every id in one of the queue's lists ("wait", "paused", "active"), read in pages.
    virtual Expected<QSet<QString>, RedisError>
    listMembers(const QString &keyPrefix, const QString &queue, const QString &list) = 0;

    // One page of a state ("wait", "paused", "prioritized", "delayed", "waiting-children",
    // "active") with each job's payload.
    virtual Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                                    const QString &state, qint64 offset,
                                                    int count) = 0;

    virtual qint64 roundTrips() const = 0;
};

struct EnqueueOutcome
{
    bool enqueued = false;
    QString replacedState; // a retained "completed"/"failed" job (or "stray" hash) removed first
    QString runnableState; // when not enqueued: the job was already runnable in this state
};

class QueueWriter
{
public:
    virtual ~QueueWriter() = default;
    virtual Expected<EnqueueOutcome, RedisError>
    enqueue(const JobRef &job, const QString &name, const QByteArray &data, qint64 timestampMs) = 0;
};

struct LockAttempt
{
    bool acquired = false;
    qint64 generation = 0; // ours when acquired, the current one when held
    QString holder;        // the holder's token when held
    qint64 holderTtlMs = -2;
};

class RecoveryLock
{
public:
    virtual ~RecoveryLock() = default;
    virtual Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs) = 0;
    // True if the lock still held our token and was extended.
    virtual Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) = 0;
    // True if our token was deleted; false if the lock was no longer ours (left alone).
    virtual Expected<bool, RedisError> release(const QString &token) = 0;
    // The current holder's token and TTL, without taking anything.
    virtual Expected<LockAttempt, RedisError> peek() = 0;
};

} // namespace reclaim
