// The recovery core on its own thread: owns the Engine (and so every connection), takes
// commands as queued slot calls, answers with queued signals. The console and the daemon both
// drive runs through it, so neither's event loop ever waits on the network.
#pragma once

#include "config/reclaimconfig.h"
#include "domain/runreport.h"
#include "ports/heldactionstore.h"
#include "recovery/heldapproval.h"
#include "recovery/joblookup.h"

#include <QObject>
#include <QThread>
#include <atomic>
#include <memory>

namespace reclaim {

class Engine;

struct LockStatus
{
    bool reachable = false;
    QString error;
    QString holder; // token, empty when free
    qint64 ttlMs = -2;
    qint64 generation = 0;
    qint64 latencyMs = 0;
};

class RecoveryWorker final : public QObject
{
    Q_OBJECT
public:
    explicit RecoveryWorker(ReclaimConfig config);
    ~RecoveryWorker() override;
    Q_DISABLE_COPY_MOVE(RecoveryWorker)

    // Asks the run in flight to stop after its current action (thread-safe).
    void requestStop() { m_stop.store(true); }
    bool busy() const { return m_busy.load(); }

public slots:
    // `runId` empty: the run makes its own; the daemon passes the id its run-start line logged.
    void runNow(const QString &trigger, bool dryRun, bool executeActions, const QString &actorKind,
                const QString &runId = {});
    void approve(const reclaim::Action &action, const reclaim::Candidate &candidate);
    // The operator's rejection, recorded (or its undo); answered by rejectionRecorded /
    // rejectionUndone.
    void reject(const reclaim::Action &action);
    void undoRejection(const reclaim::Action &action);
    // Find a job by id; answered by jobExplained.
    void explainJob(const QString &rowId);
    void peekLock();
    // Held actions (#29), from any runner: listed (answered by heldListed), approved or
    // rejected one after another (each answered by heldDecided as it is made, then
    // heldDecisionsDone). An approval re-checks and runs each under its own lock.
    void listHeld();
    void approveHeld(const QList<qint64> &ids);
    void rejectHeld(const QList<qint64> &ids, const QString &reason);
    void setConfig(const reclaim::ReclaimConfig &config);
    // Whether runs read each candidate's row as JSON (the console's details view); Skip until
    // told, as the daemon runs.
    void setRowJson(reclaim::RowJson rowJson) { m_rowJson = rowJson; }

signals:
    void runStarted(const QString &trigger);
    void progress(const QString &phase, int done, int total);
    void runFinished(const reclaim::RunReport &report);
    void actionFinished(const reclaim::Action &action);
    // `action` is Rejected when recorded; unchanged, with `error` saying why, when not.
    void rejectionRecorded(const reclaim::Action &action, const QString &error);
    // `action` is Pending again when undone; unchanged, with `error` saying why, when not.
    void rejectionUndone(const reclaim::Action &action, const QString &error);
    void lockStatus(const reclaim::LockStatus &status);
    // `error` is set when PostgreSQL could not be reached (nothing is known then).
    void jobExplained(const QString &rowId, const QList<reclaim::JobExplanation> &found,
                      const QString &error);
    // `error` is set when the held actions could not be read (nothing is known then).
    void heldListed(const QList<reclaim::HeldAction> &held, const QString &error);
    void heldDecided(const reclaim::HeldDecision &decision);
    void heldDecisionsDone(int decided);

private:
    void ensureEngine();

    ReclaimConfig m_config;
    std::unique_ptr<Engine> m_engine; // created lazily on the worker thread
    std::atomic_bool m_stop{false};
    std::atomic_bool m_busy{false};
    RowJson m_rowJson = RowJson::Skip;
};

// Owns a QThread running one RecoveryWorker; quit + wait on destruction.
class RecoveryThread final
{
public:
    explicit RecoveryThread(ReclaimConfig config);
    ~RecoveryThread();
    Q_DISABLE_COPY_MOVE(RecoveryThread)

    RecoveryWorker *worker() const { return m_worker; }

private:
    QThread m_thread;
    RecoveryWorker *m_worker;
};

void registerMetaTypes();

} // namespace reclaim

Q_DECLARE_METATYPE(reclaim::RunReport)
Q_DECLARE_METATYPE(reclaim::Action)
Q_DECLARE_METATYPE(reclaim::Candidate)
Q_DECLARE_METATYPE(reclaim::LockStatus)
Q_DECLARE_METATYPE(reclaim::ReclaimConfig)
Q_DECLARE_METATYPE(reclaim::JobExplanation)
Q_DECLARE_METATYPE(reclaim::HeldAction)
Q_DECLARE_METATYPE(reclaim::HeldDecision)
