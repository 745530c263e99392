// The queue inspector a run reads through while it holds the recovery lock: before every call
// (a probe batch, a scan page, an event-log read, a list read) it confirms the lease, which
// renews the lock once a third of its TTL has passed. Renewing only before a write let lookups
// plus a long scan outlive the TTL, and a second runner start alongside (SPEC §4: the lock is
// renewed the whole time it is held). A lost lease is not an error for the reads: the run's
// writes each confirm the lease again, and stop.
#pragma once

#include "fencing/locklease.h"
#include "ports/queueinspector.h"

namespace reclaim {

class LeasedInspector final : public QueueInspector
{
public:
    LeasedInspector(QueueInspector &inner, LockLease &lease) : m_inner(inner), m_lease(lease) {}
    Q_DISABLE_COPY_MOVE(LeasedInspector)

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
    PageThenMoves scanPageThenMoves(const QString &keyPrefix, const QString &queue,
                                    const QString &state, const ScanCursor &from, int count,
                                    const QString &since) override;
    Expected<bool, RedisError> hasTrace(const QString &keyPrefix, const QString &queue) override;
    Expected<PrioritizedSince, RedisError>
    prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark) override;
    qint64 roundTrips() const override { return m_inner.roundTrips(); }

private:
    void keepAlive();

    QueueInspector &m_inner;
    LockLease &m_lease;
};

} // namespace reclaim
