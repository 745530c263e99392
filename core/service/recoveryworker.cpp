#include "service/recoveryworker.h"

#include "service/engine.h"
#include "util/freedmemory.h"

#include <QElapsedTimer>
#include <QHostInfo>
#include <QProcessEnvironment>
#include <QTimer>

namespace reclaim {

namespace {

class SignalProgress final : public RunProgress
{
public:
    explicit SignalProgress(RecoveryWorker *worker) : m_worker(worker) {}
    void phase(const QString &phase, int done, int total) override
    {
        emit m_worker->progress(phase, done, total);
    }

private:
    RecoveryWorker *m_worker;
};

Actor actorOf(const QString &kind)
{
    const auto env = QProcessEnvironment::systemEnvironment();
    return Actor{kind,
                 QHostInfo::localHostName(),
                 env.value(QStringLiteral("USER"), env.value(QStringLiteral("LOGNAME"))),
                 {}};
}

// Without handing freed pages back, an idle daemon would hold the memory of its biggest run
// until it exits.
constexpr std::chrono::milliseconds kReturnMemoryDelay{1000};

} // namespace

void registerMetaTypes()
{
    qRegisterMetaType<RunReport>();
    qRegisterMetaType<Action>();
    qRegisterMetaType<Candidate>();
    qRegisterMetaType<LockStatus>();
    qRegisterMetaType<ReclaimConfig>();
    qRegisterMetaType<JobExplanation>();
    qRegisterMetaType<QList<JobExplanation>>();
    qRegisterMetaType<HeldAction>();
    qRegisterMetaType<QList<HeldAction>>();
    qRegisterMetaType<HeldDecision>();
    qRegisterMetaType<QList<qint64>>();
}

RecoveryWorker::RecoveryWorker(ReclaimConfig config) : m_config(std::move(config)) {}

RecoveryWorker::~RecoveryWorker() = default;

void RecoveryWorker::ensureEngine()
{
    if (!m_engine)
        m_engine = std::make_unique<Engine>(m_config);
}

void RecoveryWorker::setConfig(const ReclaimConfig &config)
{
    m_config = config;
    if (m_engine)
        m_engine->setConfig(config);
}

void RecoveryWorker::runNow(const QString &trigger, bool dryRun, bool executeActions,
                            const QString &actorKind, const QString &runId)
{
    ensureEngine();
    m_stop.store(false);
    m_busy.store(true);
    emit runStarted(trigger);
    SignalProgress progressSink(this);
    RunRequest request;
    request.trigger = trigger;
    request.dryRun = dryRun;
    request.executeActions = executeActions;
    request.actor = actorOf(actorKind);
    request.runId = runId;
    request.stopRequested = &m_stop;
    request.progress = &progressSink;
    request.rowJson = m_rowJson;
    {
        const RunReport report = m_engine->run(request);
        m_busy.store(false);
        emit runFinished(report);
    }
    // The receivers (the daemon's log and metrics, the console) drop their copy of the report
    // shortly after; only then is the run's memory all free, so hand it back a moment later.
    QTimer::singleShot(kReturnMemoryDelay, this, [] { releaseFreedMemory(); });
}

void RecoveryWorker::approve(const Action &action, const Candidate &candidate)
{
    ensureEngine();
    m_busy.store(true);
    const Action done = m_engine->approve(action, candidate, actorOf(QStringLiteral("operator")));
    m_busy.store(false);
    emit actionFinished(done);
}

void RecoveryWorker::reject(const Action &action)
{
    ensureEngine();
    m_busy.store(true);
    const auto recorded = m_engine->reject(action, actorOf(QStringLiteral("operator")));
    m_busy.store(false);
    if (!recorded) {
        emit rejectionRecorded(action, recorded.error().message);
        return;
    }
    Action rejected = action;
    rejected.result = ActionResult::Rejected;
    rejected.rejectedBy = recorded->by;
    rejected.executedAt = recorded->at;
    rejected.resultDetail =
        QStringLiteral("rejected by %1; recorded in reclaim.audit, not offered again while the row "
                       "stays %2, updatedAt %3")
            .arg(recorded->by, recorded->status, recorded->updatedAtText);
    emit rejectionRecorded(rejected, {});
}

void RecoveryWorker::undoRejection(const Action &action)
{
    ensureEngine();
    m_busy.store(true);
    const auto undone = m_engine->undoRejection(action, actorOf(QStringLiteral("operator")));
    m_busy.store(false);
    if (!undone) {
        emit rejectionUndone(action, undone.error().message);
        return;
    }
    // 0 undone: someone else undid it already; either way no rejection stands now.
    Action pending = action;
    pending.result = ActionResult::Pending;
    pending.rejectedBy.clear();
    pending.resultDetail.clear();
    pending.executedAt = {};
    emit rejectionUndone(pending, {});
}

void RecoveryWorker::explainJob(const QString &rowId)
{
    ensureEngine();
    QString error;
    const QList<JobExplanation> found = m_engine->explainJob(rowId, &error);
    emit jobExplained(rowId, found, error);
}

void RecoveryWorker::peekLock()
{
    ensureEngine();
    QElapsedTimer t;
    t.start();
    auto seen = m_engine->peekLock();
    LockStatus status;
    status.latencyMs = t.elapsed();
    status.reachable = seen.hasValue();
    if (seen) {
        status.holder = seen->holder;
        status.ttlMs = seen->holderTtlMs;
        status.generation = seen->generation;
    } else {
        status.error = seen.error().describe();
    }
    emit lockStatus(status);
}

void RecoveryWorker::listHeld()
{
    ensureEngine();
    const auto held = m_engine->heldActions(HeldFilter{});
    if (!held) {
        emit heldListed({}, held.error().message);
        return;
    }
    emit heldListed(*held, {});
}

void RecoveryWorker::approveHeld(const QList<qint64> &ids)
{
    ensureEngine();
    m_busy.store(true);
    int decided = 0;
    m_engine->approveHeld(ids, actorOf(QStringLiteral("operator")), [&](const HeldDecision &d) {
        ++decided;
        emit heldDecided(d);
    });
    m_busy.store(false);
    emit heldDecisionsDone(decided);
}

void RecoveryWorker::rejectHeld(const QList<qint64> &ids, const QString &reason)
{
    ensureEngine();
    m_busy.store(true);
    const QList<HeldDecision> decided =
        m_engine->rejectHeld(ids, actorOf(QStringLiteral("operator")), reason);
    m_busy.store(false);
    for (const HeldDecision &d : decided)
        emit heldDecided(d);
    emit heldDecisionsDone(static_cast<int>(decided.size()));
}

RecoveryThread::RecoveryThread(ReclaimConfig config)
    : m_worker(new RecoveryWorker(std::move(config)))
{
    registerMetaTypes();
    m_thread.setObjectName(QStringLiteral("reclaim-recovery"));
    m_worker->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

RecoveryThread::~RecoveryThread()
{
    m_worker->requestStop();
    m_thread.quit();
    m_thread.wait();
}

} // namespace reclaim
