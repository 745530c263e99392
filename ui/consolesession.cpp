#include "consolesession.h"

namespace reclaim::ui {

ConsoleSession::ConsoleSession(Options options, QObject *parent)
    : QObject(parent), m_options(options)
{
    registerMetaTypes();
    m_autoTimer.setSingleShot(false);
    connect(&m_autoTimer, &QTimer::timeout, this, &ConsoleSession::runNow);
    m_peekTimer.setInterval(m_options.lockPeekMs);
    connect(&m_peekTimer, &QTimer::timeout, this, &ConsoleSession::peekLock);
}

// RecoveryThread's destructor asks the worker to stop after its current action, then quits and
// joins the thread; answers still queued for us are dropped with this object.
ConsoleSession::~ConsoleSession() = default;

void ConsoleSession::setConfig(const ReclaimConfig &config)
{
    m_config = config;
    if (m_thread) {
        RecoveryWorker *worker = m_thread->worker();
        QMetaObject::invokeMethod(
            worker, [worker, config] { worker->setConfig(config); }, Qt::QueuedConnection);
        peekLock();
        return;
    }
    m_thread = std::make_unique<RecoveryThread>(config);
    RecoveryWorker *worker = m_thread->worker();
    // The console shows each candidate's row: queued first, so every run reads it.
    QMetaObject::invokeMethod(
        worker, [worker] { worker->setRowJson(RowJson::Read); }, Qt::QueuedConnection);
    // The worker lives on its own thread, so these are queued; `this` as the context drops any
    // answer that arrives after the session is gone.
    connect(worker, &RecoveryWorker::runStarted, this, [this] { emit runStarted(); });
    connect(worker, &RecoveryWorker::progress, this, &ConsoleSession::progress);
    // Turning a report into the candidate table's rows, in the table's order, and copying its
    // planned actions is the part of showing it that grows with the candidates (a second at
    // 200,000): do it here, on the recovery thread the report comes
    // from (a direct connection), and hand the UI thread report and rows together. Posted from
    // the recovery thread, they stay in order with its other answers; `this` outlives the thread
    // (its destructor joins it) and drops the call if it is already being destroyed.
    connect(
        worker, &RecoveryWorker::runFinished, this,
        [this](const RunReport &report) {
            const int packed = m_candidateOrder.load();
            CandidateRows rows = buildCandidateRows(
                report, {packed >> 1, (packed & 1) ? Qt::DescendingOrder : Qt::AscendingOrder});
            QMetaObject::invokeMethod(
                this,
                [this, report, rows = std::move(rows)] {
                    m_runInFlight = false;
                    emit runFinished(report, rows);
                    peekLock();
                },
                Qt::QueuedConnection);
        },
        Qt::DirectConnection);
    connect(worker, &RecoveryWorker::actionFinished, this, [this](const Action &action) {
        m_approvals = std::max(0, m_approvals - 1);
        emit actionFinished(action);
        peekLock();
    });
    connect(worker, &RecoveryWorker::rejectionRecorded, this, &ConsoleSession::rejectionRecorded);
    connect(worker, &RecoveryWorker::rejectionUndone, this, &ConsoleSession::rejectionUndone);
    connect(worker, &RecoveryWorker::jobExplained, this, &ConsoleSession::jobExplained);
    connect(worker, &RecoveryWorker::lockStatus, this, [this](const LockStatus &status) {
        m_peekInFlight = false;
        emit lockStatus(status);
    });
    connect(worker, &RecoveryWorker::heldListed, this, &ConsoleSession::heldListed);
    connect(worker, &RecoveryWorker::heldDecided, this, &ConsoleSession::heldDecided);
    connect(worker, &RecoveryWorker::heldDecisionsDone, this, [this](int decided) {
        m_heldBatches = std::max(0, m_heldBatches - 1);
        emit heldDecisionsDone(decided);
        peekLock();
    });
    m_peekTimer.start();
    peekLock();
}

void ConsoleSession::setCandidateOrder(CandidateOrder order)
{
    m_candidateOrder.store(order.column * 2 + (order.order == Qt::DescendingOrder ? 1 : 0));
}

bool ConsoleSession::runNow()
{
    if (!m_thread || m_runInFlight)
        return false;
    m_runInFlight = true;
    RecoveryWorker *worker = m_thread->worker();
    // The console plans and the operator approves: actions are never executed by the run itself.
    const bool dryRun = m_options.readOnly;
    QMetaObject::invokeMethod(
        worker,
        [worker, dryRun] {
            worker->runNow(QStringLiteral("console"), dryRun, false, QStringLiteral("operator"));
        },
        Qt::QueuedConnection);
    if (m_autoSeconds > 0)
        m_autoTimer.start(); // count the interval from this run
    return true;
}

bool ConsoleSession::approve(const Action &action, const Candidate &candidate)
{
    if (!m_thread || m_options.readOnly)
        return false;
    ++m_approvals;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, action, candidate] { worker->approve(action, candidate); },
        Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::reject(const Action &action)
{
    if (!m_thread || m_options.readOnly)
        return false;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, action] { worker->reject(action); }, Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::undoRejection(const Action &action)
{
    if (!m_thread || m_options.readOnly)
        return false;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, action] { worker->undoRejection(action); }, Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::explainJob(const QString &rowId)
{
    if (!m_thread)
        return false;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, rowId] { worker->explainJob(rowId); }, Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::listHeld()
{
    if (!m_thread)
        return false;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker] { worker->listHeld(); }, Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::approveHeld(const QList<qint64> &ids)
{
    if (!m_thread || m_options.readOnly || ids.isEmpty())
        return false;
    ++m_heldBatches;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, ids] { worker->approveHeld(ids); }, Qt::QueuedConnection);
    return true;
}

bool ConsoleSession::rejectHeld(const QList<qint64> &ids, const QString &reason)
{
    if (!m_thread || m_options.readOnly || ids.isEmpty())
        return false;
    ++m_heldBatches;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker, ids, reason] { worker->rejectHeld(ids, reason); }, Qt::QueuedConnection);
    return true;
}

void ConsoleSession::peekLock()
{
    // One peek at a time: while a run holds the worker, peeks would only pile up behind it.
    if (!m_thread || m_peekInFlight)
        return;
    m_peekInFlight = true;
    RecoveryWorker *worker = m_thread->worker();
    QMetaObject::invokeMethod(
        worker, [worker] { worker->peekLock(); }, Qt::QueuedConnection);
}

void ConsoleSession::setAutoRefreshSeconds(int seconds)
{
    m_autoSeconds = std::max(0, seconds);
    if (m_autoSeconds == 0) {
        m_autoTimer.stop();
        return;
    }
    m_autoTimer.start(m_autoSeconds * 1000);
}

QDateTime ConsoleSession::nextRunAt() const
{
    if (!m_autoTimer.isActive())
        return {};
    return QDateTime::currentDateTime().addMSecs(m_autoTimer.remainingTime());
}

} // namespace reclaim::ui
