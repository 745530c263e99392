// The composition root: the recovery core wired to the real servers (PostgreSQL store, BullMQ
// queue, Redis lock) — what the console's worker thread, the daemon and `--once` all call.
// Thread-confined: create and use it on one thread.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/recoverylock.h"
#include "recovery/heldapproval.h"
#include "recovery/joblookup.h"
#include "recovery/recoveryrun.h"

#include <functional>
#include <memory>

namespace reclaim {

struct RedisAdapters;

class Engine final
{
public:
    explicit Engine(ReclaimConfig config);
    ~Engine();
    Q_DISABLE_COPY_MOVE(Engine)

    const ReclaimConfig &config() const { return m_config; }
    // Takes effect from the next run (SIGHUP, a new console profile).
    void setConfig(ReclaimConfig config);

    RunReport run(const RunRequest &request);
    Action approve(const Action &action, const Candidate &candidate, const Actor &actor);
    // Records the operator's rejection of `action` (see JobStore::recordRejection).
    Expected<Rejection, StoreError> reject(const Action &action, const Actor &actor);
    Expected<int, StoreError> undoRejection(const Action &action, const Actor &actor);
    Expected<LockAttempt, RedisError> peekLock();

    // Held actions (#29): listed with a read-only store; approved one at a time, each checked
    // again and run under its own lock (recovery/heldapproval.h); rejected. `each` hears every
    // decision as it is made (progress for a long --approve --domain).
    Expected<QList<HeldAction>, StoreError> heldActions(const HeldFilter &filter);
    // Only the ids of those held now: what an approval of a whole domain starts from.
    Expected<QList<qint64>, StoreError> idsHeldNow(const HeldFilter &filter);
    void approveHeld(const QList<qint64> &ids, const Actor &actor,
                     const std::function<void(const HeldDecision &)> &each);
    // Redis round trips this engine's connection has made (an approval's cost in --json).
    qint64 redisRoundTrips() const;
    QList<HeldDecision> rejectHeld(const QList<qint64> &ids, const Actor &actor,
                                   const QString &reason);
    // Find a job by id (recovery/joblookup.h): reads only, with a read-only store. Empty with
    // `storeError` set when PostgreSQL cannot be reached at all.
    QList<JobExplanation> explainJob(const QString &rowId, QString *storeError);

private:
    ReclaimConfig m_config;
    // Kept across runs: its lock gives back what a failed release left (leftlockreleaser.h).
    std::unique_ptr<RedisAdapters> m_redis;
};

} // namespace reclaim
