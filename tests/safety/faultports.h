// Decorators around the real ports that call a hook at each step boundary of a run, so a test
// can stop, pause or restart a server exactly there.
#pragma once

#include "ports/jobstore.h"
#include "ports/queueinspector.h"
#include "ports/queuewriter.h"
#include "ports/recoverylock.h"

#include <functional>

namespace reclaim::test {

// Boundaries, in run order: lock, candidates, lookup, scan, enqueue, write, release.
using BoundaryHook = std::function<void(const QString &boundary)>;

class HookedQueue final : public QueueInspector, public QueueWriter, public RecoveryLock
{
public:
    HookedQueue(QueueInspector &inspector, QueueWriter &writer, RecoveryLock &lock,
                BoundaryHook hook)
        : m_inspector(inspector), m_writer(writer), m_lock(lock), m_hook(std::move(hook))
    {}

    using QueueInspector::probe;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                PayloadSize payload) override
    {
        m_hook(QStringLiteral("lookup"));
        return m_inspector.probe(jobs, payload);
    }
    Expected<RowIdSet, RedisError> listMembers(const QString &p, const QString &q,
                                               const QString &l) override
    {
        return m_inspector.listMembers(p, q, l);
    }
    Expected<ScanPage, RedisError> scanPage(const QString &p, const QString &q, const QString &s,
                                            const ScanCursor &o, int c) override
    {
        m_hook(QStringLiteral("scan"));
        return m_inspector.scanPage(p, q, s, o, c);
    }
    Expected<QueueMoves, RedisError> movesSince(const QString &p, const QString &q,
                                                const QString &since) override
    {
        return m_inspector.movesSince(p, q, since);
    }
    // The run's way to read a page: the same "scan" boundary, then the real reader's one trip.
    PageThenMoves scanPageThenMoves(const QString &p, const QString &q, const QString &s,
                                    const ScanCursor &o, int c, const QString &since) override
    {
        m_hook(QStringLiteral("scan"));
        return m_inspector.scanPageThenMoves(p, q, s, o, c, since);
    }
    Expected<bool, RedisError> hasTrace(const QString &p, const QString &q) override
    {
        m_hook(QStringLiteral("trace"));
        return m_inspector.hasTrace(p, q);
    }
    Expected<PrioritizedSince, RedisError> prioritizedSince(const QString &p, const QString &q,
                                                            const QString &mark) override
    {
        return m_inspector.prioritizedSince(p, q, mark);
    }
    qint64 roundTrips() const override { return m_inspector.roundTrips(); }
    Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) override
    {
        m_hook(QStringLiteral("enqueue"));
        return m_writer.enqueue(request);
    }
    // A batch's enqueues go out together: one "enqueue" boundary before them.
    QList<Expected<EnqueueOutcome, RedisError>>
    enqueueMany(const QList<EnqueueRequest> &requests) override
    {
        m_hook(QStringLiteral("enqueue"));
        return m_writer.enqueueMany(requests);
    }
    // The same boundary before a batch sent ahead (the run's way): its scripts go out as the
    // real writer sends them, and their answers are read later.
    std::unique_ptr<PendingEnqueue> startEnqueue(const QList<EnqueueRequest> &requests) override
    {
        m_hook(QStringLiteral("enqueue"));
        return m_writer.startEnqueue(requests);
    }
    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttl,
                                              qint64 floor) override
    {
        m_hook(QStringLiteral("lock"));
        return m_lock.acquire(token, ttl, floor);
    }
    Expected<bool, RedisError> renew(const QString &token, qint64 ttl) override
    {
        return m_lock.renew(token, ttl);
    }
    Expected<bool, RedisError> release(const QString &token) override
    {
        m_hook(QStringLiteral("release"));
        return m_lock.release(token);
    }
    Expected<LockAttempt, RedisError> peek() override { return m_lock.peek(); }

private:
    QueueInspector &m_inspector;
    QueueWriter &m_writer;
    RecoveryLock &m_lock;
    BoundaryHook m_hook;
};

class HookedStore final : public JobStore
{
public:
    HookedStore(JobStore &store, BoundaryHook hook) : m_store(store), m_hook(std::move(hook)) {}

    // Called with the action right before each row write (after the "write" boundary hook), for
    // a test that must stop at one particular action's write.
    std::function<void(const Action &)> beforeWrite;

    Expected<QList<Candidate>, StoreError> readCandidates(const DomainConfig &d,
                                                          RowJson rowJson) override
    {
        m_hook(QStringLiteral("candidates"));
        return m_store.readCandidates(d, rowJson);
    }
    Expected<std::optional<QByteArray>, StoreError>
    restorePayload(const DomainConfig &d, const RestoreRule &r, const QString &id) override
    {
        return m_store.restorePayload(d, r, id);
    }
    Expected<int, StoreError> recentRequeues(const DomainConfig &d, const QString &id) override
    {
        return m_store.recentRequeues(d, id);
    }
    Expected<qint64, StoreError> fenceGeneration() override { return m_store.fenceGeneration(); }
    Expected<bool, StoreError> startGeneration(qint64 g) override
    {
        return m_store.startGeneration(g);
    }
    Expected<qint64, StoreError> recordIntent(const Action &a, const Actor &actor) override
    {
        return m_store.recordIntent(a, actor);
    }
    Expected<WriteOutcome, StoreError> applyAction(const DomainConfig &d, const Action &a,
                                                   const Actor &actor) override
    {
        m_hook(QStringLiteral("write"));
        if (beforeWrite)
            beforeWrite(a);
        return m_store.applyAction(d, a, actor);
    }
    void auditOnly(const Action &a, const Actor &actor) override { m_store.auditOnly(a, actor); }
    // The batched calls reach the real store's own (set-based) implementations; a batch's row
    // writes go out together: one "write" boundary, then beforeWrite with each action.
    Expected<QHash<QString, int>, StoreError> recentRequeuesOf(const DomainConfig &d,
                                                               const QStringList &ids) override
    {
        return m_store.recentRequeuesOf(d, ids);
    }
    QHash<QString, RestoredInput> restorePayloadsOf(const DomainConfig &d, const RestoreRule &r,
                                                    const QStringList &ids) override
    {
        return m_store.restorePayloadsOf(d, r, ids);
    }
    Expected<QList<qint64>, StoreError> recordIntents(const QList<const Action *> &actions,
                                                      const Actor &actor) override
    {
        return m_store.recordIntents(actions, actor);
    }
    QList<Expected<WriteOutcome, StoreError>> applyActions(const DomainConfig &d,
                                                           const QList<const Action *> &actions,
                                                           const Actor &actor) override
    {
        m_hook(QStringLiteral("write"));
        if (beforeWrite)
            for (const Action *a : actions)
                beforeWrite(*a);
        return m_store.applyActions(d, actions, actor);
    }
    void auditOnlyMany(const QList<const Action *> &actions, const Actor &actor) override
    {
        m_store.auditOnlyMany(actions, actor);
    }
    QStringList finishAudits() override { return m_store.finishAudits(); }
    Expected<std::optional<Candidate>, StoreError> readRow(const DomainConfig &d,
                                                           const QString &id) override
    {
        return m_store.readRow(d, id);
    }
    Expected<QList<Rejection>, StoreError> activeRejections(const DomainConfig &d) override
    {
        return m_store.activeRejections(d);
    }
    Expected<Rejection, StoreError> recordRejection(const Action &a, const Actor &actor) override
    {
        return m_store.recordRejection(a, actor);
    }
    Expected<int, StoreError> undoRejection(const Action &a, const Actor &actor) override
    {
        return m_store.undoRejection(a, actor);
    }

private:
    JobStore &m_store;
    BoundaryHook m_hook;
};

} // namespace reclaim::test
