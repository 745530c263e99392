#include "service/engine.h"

#include "postgres/pgjobstore.h"
#include "service/redisadapters.h"

namespace reclaim {

Engine::Engine(ReclaimConfig config)
    : m_config(std::move(config)), m_redis(std::make_unique<RedisAdapters>(m_config))
{}

Engine::~Engine() = default;

void Engine::setConfig(ReclaimConfig config)
{
    // The new adapters start with nothing left: give back what the old ones may still hold.
    m_redis->lock.releaseLeft();
    m_config = std::move(config);
    m_redis = std::make_unique<RedisAdapters>(m_config);
}

RunReport Engine::run(const RunRequest &request)
{
    // A fresh database connection per run: a connection broken by the last run's fault must
    // not poison this one.
    auto store = PgJobStore::open(m_config, request.dryRun);
    m_redis->link.startRun();
    RecoveryRun run(m_config, store ? store->get() : nullptr,
                    store ? QString() : store.error().message, m_redis->queue, m_redis->queue,
                    m_redis->lock);
    return run.run(request);
}

Action Engine::approve(const Action &action, const Candidate &candidate, const Actor &actor)
{
    auto store = PgJobStore::open(m_config, false);
    m_redis->link.startRun();
    RecoveryRun run(m_config, store ? store->get() : nullptr,
                    store ? QString() : store.error().message, m_redis->queue, m_redis->queue,
                    m_redis->lock);
    Action done = run.runApproved(action, candidate, actor);
    // As at the end of a run: what the audit could not record when it happened, now or told.
    if (store)
        for (const QString &left : (*store)->finishAudits())
            done.resultDetail += QStringLiteral("; ") + left;
    return done;
}

Expected<Rejection, StoreError> Engine::reject(const Action &action, const Actor &actor)
{
    auto store = PgJobStore::open(m_config, false);
    if (!store)
        return unexpected(store.error());
    return (*store)->recordRejection(action, actor);
}

Expected<int, StoreError> Engine::undoRejection(const Action &action, const Actor &actor)
{
    auto store = PgJobStore::open(m_config, false);
    if (!store)
        return unexpected(store.error());
    return (*store)->undoRejection(action, actor);
}

QList<JobExplanation> Engine::explainJob(const QString &rowId, QString *storeError)
{
    auto store = PgJobStore::open(m_config, true);
    if (!store) {
        *storeError = store.error().message;
        return {};
    }
    m_redis->link.startRun();
    return reclaim::explainJob(m_config, **store, m_redis->queue, rowId);
}

Expected<LockAttempt, RedisError> Engine::peekLock()
{
    return m_redis->lock.peek();
}

Expected<QList<HeldAction>, StoreError> Engine::heldActions(const HeldFilter &filter)
{
    auto store = PgJobStore::open(m_config, true);
    if (!store)
        return unexpected(store.error());
    return (*store)->heldActions(filter);
}

Expected<QList<qint64>, StoreError> Engine::idsHeldNow(const HeldFilter &filter)
{
    auto store = PgJobStore::open(m_config, true);
    if (!store)
        return unexpected(store.error());
    return (*store)->idsHeldNow(filter);
}

namespace {

QList<HeldDecision> allFailed(const QList<qint64> &ids, const QString &why)
{
    QList<HeldDecision> out;
    for (qint64 id : ids)
        out << HeldDecision{id, HeldDecision::Outcome::StoreFailed, why, {}, {}};
    return out;
}

} // namespace

qint64 Engine::redisRoundTrips() const
{
    return m_redis->queue.roundTrips();
}

void Engine::approveHeld(const QList<qint64> &ids, const Actor &actor,
                         const std::function<void(const HeldDecision &)> &each)
{
    auto store = PgJobStore::open(m_config, false);
    if (!store) {
        for (const HeldDecision &d : allFailed(ids, store.error().message))
            each(d);
        return;
    }
    const QString noError;
    const ApprovedRecheckPorts ports{m_config,       store->get(),   noError,
                                     m_redis->queue, m_redis->queue, m_redis->lock};
    m_redis->link.startRun();
    approveHeldActions(ports, **store, ids, actor, each);
}

QList<HeldDecision> Engine::rejectHeld(const QList<qint64> &ids, const Actor &actor,
                                       const QString &reason)
{
    auto store = PgJobStore::open(m_config, false);
    if (!store)
        return allFailed(ids, store.error().message);
    return rejectHeldActions(**store, **store, ids, actor, reason);
}

} // namespace reclaim
