// Where the recovery lock's fencing generation lives, and which key each queue's fenced enqueue
// compares with the run's generation.
//
// On one node that is the generation counter itself ("<lockKey>:generation"). On a Redis Cluster
// a script may only touch keys of one slot, and a queue's slot is rarely the lock's: each queue
// slot then holds a copy of the generation ("{<queue tag>}:reclaim:generation:<lockKey>"),
// raised at acquisition before the run writes anything, and only ever raised. A stale run's
// enqueue compares its own generation with that copy and is refused once a newer run raised it.
#pragma once

#include "config/reclaimconfig.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace reclaim {

class FenceKeys final
{
public:
    FenceKeys(const QString &lockKey, bool cluster);

    const QByteArray &generation() const { return m_generation; }

    // The key enqueue.lua compares for a job of `keyPrefix`:`queue`: the generation counter on
    // one node or when the queue shares the lock's slot, else that queue slot's copy.
    QByteArray forQueue(const QString &keyPrefix, const QString &queue) const;

    // The copies a run must raise as it takes the lock, one per queue slot that is not the
    // lock's, without repeats: none on one node.
    QList<QByteArray> copiesFor(const QList<QPair<QString, QString>> &prefixAndQueue) const;

    static QByteArray generationKeyFor(const QString &lockKey);

private:
    QString m_lockKey;
    QByteArray m_generation;
    bool m_cluster;
};

// The fence keys of a deployment: a cluster's when its Redis URL is redis+cluster://.
FenceKeys fenceKeysOf(const ReclaimConfig &config);
// Every (key prefix, queue) of the configuration's domains.
QList<QPair<QString, QString>> queuesOf(const ReclaimConfig &config);

} // namespace reclaim
