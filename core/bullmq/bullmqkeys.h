// Where BullMQ keeps one queue's structures in Redis: "<prefix>:<queue>:<suffix>", the job
// hashes being "<prefix>:<queue>:<job id>" (as BullMQ's own scripts build them).
#pragma once

#include <QByteArray>
#include <QString>

namespace reclaim::bullmq {

// "<prefix>:<queue>:", to which a suffix or a job id is appended.
inline QByteArray queueKeyPrefix(const QString &prefix, const QString &queue)
{
    return (prefix + QLatin1Char(':') + queue + QLatin1Char(':')).toUtf8();
}

inline QByteArray queueKey(const QString &prefix, const QString &queue, const QString &suffix)
{
    return queueKeyPrefix(prefix, queue) + suffix.toUtf8();
}

} // namespace reclaim::bullmq
