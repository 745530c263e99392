// One recovery run (SPEC §3) over abstract adapters: lock, candidates, direct lookup, scan,
// plan, execute, release — returning the report every front end reads.
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "ports/jobstore.h"
#include "ports/queueinspector.h"
#include "ports/queuewriter.h"
#include "ports/recoverylock.h"

#include <atomic>

namespace reclaim {

class RunProgress
{
public:
    virtual ~RunProgress() = default;
    // `phase` is one of lock, candidates, lookup, scan, plan, execute, release.
    virtual void phase(const QString &phase, int done, int total) = 0;
};

struct RunRequest
{
    QString trigger = QStringLiteral("once");
    bool dryRun = false;        // plan only; no write to Redis (not even the lock) or PostgreSQL
    bool executeActions = true; // false: plan and leave every action pending (observe, console)
    Actor actor;
    QString runId; // empty: the run makes its own (RunReport::newRunId)
    const std::atomic_bool *stopRequested = nullptr; // checked between actions
    RunProgress *progress = nullptr;
    // Each candidate's row as JSON, for the console's details view (domain/candidate.h).
    RowJson rowJson = RowJson::Skip;
};

class RecoveryRun final
{
public:
    // `store` may be null when the job store could not be opened; `storeError` then says why.
    RecoveryRun(const ReclaimConfig &config, JobStore *store, QString storeError,
                QueueInspector &inspector, QueueWriter &writer, RecoveryLock &lock);

    RunReport run(const RunRequest &request);

    // An operator approved `action` (planned earlier for `candidate`): take the lock with a new
    // generation, look the candidate up again, and only if it is still ABSENT execute it.
    Action runApproved(Action action, const Candidate &candidate, const Actor &actor);

private:
    void report(const RunRequest &r, const QString &phase, int done, int total) const;

    const ReclaimConfig &m_config;
    JobStore *m_store;
    QString m_storeError;
    QueueInspector &m_inspector;
    QueueWriter &m_writer;
    RecoveryLock &m_lock;
};

} // namespace reclaim
