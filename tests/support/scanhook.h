// A queue inspector that forwards to the real one and calls a hook after every scan page read:
// a test makes the real bullmq move the queue there, between two pages, as traffic would.
#pragma once

#include "ports/queueinspector.h"

#include <functional>

namespace reclaim::test {

class ScanHookInspector final : public QueueInspector
{
public:
    using Hook =
        std::function<void(const QString &queue, const QString &state, const ScanPage &page)>;
    ScanHookInspector(QueueInspector &inner, Hook hook) : m_inner(inner), m_hook(std::move(hook)) {}

    using QueueInspector::probe;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                PayloadSize payload) override;
    Expected<RowIdSet, RedisError> listMembers(const QString &keyPrefix, const QString &queue,
                                               const QString &list) override;
    Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                            const QString &state, const ScanCursor &from,
                                            int count) override;
    Expected<QueueMoves, RedisError> movesSince(const QString &keyPrefix, const QString &queue,
                                                const QString &since) override;
    // The scan's way (the real reader's one round trip for the page and the event log after
    // it); the hook runs once both are read, so what it moves is traffic before the next page.
    PageThenMoves scanPageThenMoves(const QString &keyPrefix, const QString &queue,
                                    const QString &state, const ScanCursor &from, int count,
                                    const QString &since) override;
    Expected<bool, RedisError> hasTrace(const QString &keyPrefix, const QString &queue) override
    {
        return m_inner.hasTrace(keyPrefix, queue);
    }
    Expected<PrioritizedSince, RedisError>
    prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark) override;
    qint64 roundTrips() const override { return m_inner.roundTrips(); }

private:
    QueueInspector &m_inner;
    Hook m_hook;
};

} // namespace reclaim::test
