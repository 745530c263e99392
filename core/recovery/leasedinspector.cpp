#include "recovery/leasedinspector.h"

namespace reclaim {

void LeasedInspector::keepAlive()
{
    // A dry run holds nothing; a lost lease stays lost (LockLease::confirm says why).
    if (m_lease.held())
        (void)m_lease.confirm();
}

QList<Expected<Sighting, RedisError>> LeasedInspector::probe(const QList<JobRef> &jobs,
                                                             PayloadSize payload)
{
    keepAlive();
    return m_inner.probe(jobs, payload);
}

Expected<RowIdSet, RedisError>
LeasedInspector::listMembers(const QString &keyPrefix, const QString &queue, const QString &list)
{
    keepAlive();
    return m_inner.listMembers(keyPrefix, queue, list);
}

Expected<ScanPage, RedisError> LeasedInspector::scanPage(const QString &keyPrefix,
                                                         const QString &queue, const QString &state,
                                                         const ScanCursor &from, int count)
{
    keepAlive();
    return m_inner.scanPage(keyPrefix, queue, state, from, count);
}

Expected<QueueMoves, RedisError>
LeasedInspector::movesSince(const QString &keyPrefix, const QString &queue, const QString &since)
{
    keepAlive();
    return m_inner.movesSince(keyPrefix, queue, since);
}

QueueInspector::PageThenMoves LeasedInspector::scanPageThenMoves(const QString &keyPrefix,
                                                                 const QString &queue,
                                                                 const QString &state,
                                                                 const ScanCursor &from, int count,
                                                                 const QString &since)
{
    keepAlive();
    return m_inner.scanPageThenMoves(keyPrefix, queue, state, from, count, since);
}

Expected<bool, RedisError> LeasedInspector::hasTrace(const QString &keyPrefix, const QString &queue)
{
    keepAlive();
    return m_inner.hasTrace(keyPrefix, queue);
}

Expected<PrioritizedSince, RedisError> LeasedInspector::prioritizedSince(const QString &keyPrefix,
                                                                         const QString &queue,
                                                                         const QString &mark)
{
    keepAlive();
    return m_inner.prioritizedSince(keyPrefix, queue, mark);
}

} // namespace reclaim
