#include "support/scanhook.h"

namespace reclaim::test {

QList<Expected<Sighting, RedisError>> ScanHookInspector::probe(const QList<JobRef> &jobs,
                                                               PayloadSize payload)
{
    return m_inner.probe(jobs, payload);
}

Expected<RowIdSet, RedisError>
ScanHookInspector::listMembers(const QString &keyPrefix, const QString &queue, const QString &list)
{
    return m_inner.listMembers(keyPrefix, queue, list);
}

Expected<ScanPage, RedisError> ScanHookInspector::scanPage(const QString &keyPrefix,
                                                           const QString &queue,
                                                           const QString &state,
                                                           const ScanCursor &from, int count)
{
    auto page = m_inner.scanPage(keyPrefix, queue, state, from, count);
    if (page)
        m_hook(queue, state, *page);
    return page;
}

Expected<QueueMoves, RedisError>
ScanHookInspector::movesSince(const QString &keyPrefix, const QString &queue, const QString &since)
{
    return m_inner.movesSince(keyPrefix, queue, since);
}

QueueInspector::PageThenMoves ScanHookInspector::scanPageThenMoves(const QString &keyPrefix,
                                                                   const QString &queue,
                                                                   const QString &state,
                                                                   const ScanCursor &from,
                                                                   int count, const QString &since)
{
    auto step = m_inner.scanPageThenMoves(keyPrefix, queue, state, from, count, since);
    if (step.page)
        m_hook(queue, state, *step.page);
    return step;
}

Expected<PrioritizedSince, RedisError> ScanHookInspector::prioritizedSince(const QString &keyPrefix,
                                                                           const QString &queue,
                                                                           const QString &mark)
{
    return m_inner.prioritizedSince(keyPrefix, queue, mark);
}

} // namespace reclaim::test
