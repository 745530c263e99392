// The queue writer port: how a requeue puts a rebuilt job back on its BullMQ queue.
#pragma once

#include "ports/queueinspector.h"

#include <QByteArray>
#include <QString>

namespace reclaim {

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

} // namespace reclaim
