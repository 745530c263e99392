// The queue inspector port: how the recovery core looks at BullMQ jobs, in batches, and learns
// either where each one is or that it could not look.
#pragma once

#include "domain/verdict.h"
#include "ports/rediserror.h"
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

} // namespace reclaim
