// The console's link to the recovery core: owns the worker thread, sends it commands as queued
// calls and hands its answers to the UI thread. Nothing here ever waits on the network.
#pragma once

#include "candidaterows.h"
#include "config/reclaimconfig.h"
#include "service/recoveryworker.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>

namespace reclaim::ui {

class ConsoleSession final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        bool readOnly = false; // runs are dry runs; approvals are refused
        int lockPeekMs = 3000; // how often the lock panel asks Redis
    };

    explicit ConsoleSession(Options options, QObject *parent = nullptr);
    ~ConsoleSession() override;
    Q_DISABLE_COPY_MOVE(ConsoleSession)

    // The first call starts the worker thread; later calls hand the worker the new configuration
    // (it takes effect from the next run).
    void setConfig(const ReclaimConfig &config);
    bool hasConfig() const { return m_thread != nullptr; }
    const ReclaimConfig &config() const { return m_config; }
    bool readOnly() const { return m_options.readOnly; }
    bool runInFlight() const { return m_runInFlight; }
    int approvalsInFlight() const { return m_approvals; }

    // False (and nothing sent) without a configuration or while a run is in flight.
    bool runNow();
    // The order the candidate table shows: each report's rows are built in it, off the UI thread.
    void setCandidateOrder(CandidateOrder order);
    // False (and nothing sent) in read-only mode or without a configuration.
    bool approve(const Action &action, const Candidate &candidate);
    // Records the operator's rejection of `action` (or undoes one) on the worker thread. False
    // (and nothing sent) in read-only mode or without a configuration.
    bool reject(const Action &action);
    bool undoRejection(const Action &action);
    // Find a job by id on the worker thread (behind a run in flight). False without a
    // configuration.
    bool explainJob(const QString &rowId);
    void peekLock();

    // Held actions (#29), whichever runner held them: listed, approved or rejected on the
    // worker thread. False (and nothing sent) without a configuration; approving and rejecting
    // also in read-only mode.
    bool listHeld();
    bool approveHeld(const QList<qint64> &ids);
    bool rejectHeld(const QList<qint64> &ids, const QString &reason);
    bool heldDecisionsInFlight() const { return m_heldBatches > 0; }

    // 0 turns automatic runs off.
    void setAutoRefreshSeconds(int seconds);
    int autoRefreshSeconds() const { return m_autoSeconds; }
    QDateTime nextRunAt() const;

signals:
    void runStarted();
    void progress(const QString &phase, int done, int total);
    // `rows` are the candidate table's rows, already built from `report` off the UI thread.
    void runFinished(const reclaim::RunReport &report, const reclaim::ui::CandidateRows &rows);
    void actionFinished(const reclaim::Action &action);
    void rejectionRecorded(const reclaim::Action &action, const QString &error);
    void rejectionUndone(const reclaim::Action &action, const QString &error);
    void jobExplained(const QString &rowId, const QList<reclaim::JobExplanation> &found,
                      const QString &error);
    void lockStatus(const reclaim::LockStatus &status);
    void heldListed(const QList<reclaim::HeldAction> &held, const QString &error);
    void heldDecided(const reclaim::HeldDecision &decision);
    void heldDecisionsDone(int decided);

private:
    Options m_options;
    // Read by the recovery thread when a run finishes: the column and the order, packed.
    std::atomic<int> m_candidateOrder{0};
    ReclaimConfig m_config;
    std::unique_ptr<RecoveryThread> m_thread;
    QTimer m_autoTimer;
    QTimer m_peekTimer;
    int m_autoSeconds = 0;
    bool m_runInFlight = false;
    bool m_peekInFlight = false;
    int m_approvals = 0;
    int m_heldBatches = 0;
};

} // namespace reclaim::ui
