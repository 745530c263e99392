#include "daemon/daemonloop.h"

#include "config/configloader.h"
#include "logging/runlog.h"
#include "metrics/metricsregistry.h"
#include "service/checkrunner.h"
#include "service/recoveryworker.h"

#include <QJsonObject>

namespace reclaim {

namespace {

// Phases a non-dry run reaches only while holding the lock (it is taken in "lock").
bool holdsLockIn(const QString &phase)
{
    return phase != QLatin1String("lock") && phase != QLatin1String("release");
}

void log(LogLevel level, const QString &message, const LogFields &fields)
{
    logging::write(level, message, fields);
}

} // namespace

DaemonLoop::DaemonLoop(ReclaimConfig config, Options options, MetricsRegistry &metrics,
                       QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_options(std::move(options)),
      m_metrics(metrics), m_stopping(std::make_shared<std::atomic_bool>(false)),
      m_recovery(std::make_unique<RecoveryThread>(m_config)),
      m_check(std::make_unique<CheckRunner>())
{
    connect(m_check.get(), &CheckRunner::finished, this, &DaemonLoop::onCheckFinished);
    RecoveryWorker *worker = m_recovery->worker();
    // runNow() clears the worker's stop flag when it starts; a stop requested between queuing
    // the run and its start must survive that, so re-assert it on the worker thread, before
    // the run does anything.
    connect(
        worker, &RecoveryWorker::runStarted, worker,
        [worker, stopping = m_stopping] {
            if (stopping->load())
                worker->requestStop();
        },
        Qt::DirectConnection);
    connect(worker, &RecoveryWorker::progress, this,
            [this](const QString &phase, int, int) { onProgress(phase); });
    connect(worker, &RecoveryWorker::runFinished, this, &DaemonLoop::onRunFinished);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &DaemonLoop::tick);
    m_readiness.interval = interval();
    m_metrics.setRunInterval(interval().count());
}

DaemonLoop::~DaemonLoop() = default;

std::chrono::seconds DaemonLoop::interval() const
{
    return m_options.intervalSeconds ? std::chrono::seconds(*m_options.intervalSeconds)
                                     : m_config.run.interval;
}

bool DaemonLoop::executeActions() const
{
    // Each action's policy decides (domains[].policy); with no kind on auto the daemon only
    // plans, holds and reports.
    return !m_options.dryRun && m_config.executesAnything();
}

void DaemonLoop::start()
{
    m_timer.start(interval());
    m_check->start(m_config);
    tick();
}

void DaemonLoop::onCheckFinished(const CheckReport &report)
{
    // One line per item that did not pass, each with its id, why and the fix; then the result.
    QStringList failed;
    for (const CheckItem &item : report.items) {
        if (item.status == CheckStatus::Pass)
            continue;
        if (item.status == CheckStatus::Fail)
            failed << QStringLiteral("%1: %2").arg(item.id, item.summary);
        log(item.status == CheckStatus::Fail ? LogLevel::Error : LogLevel::Warn,
            QStringLiteral("check %1 %2: %3")
                .arg(CheckReport::statusName(item.status), item.id, item.summary),
            {{QStringLiteral("event"), QStringLiteral("check-item")},
             {QStringLiteral("id"), item.id},
             {QStringLiteral("status"), CheckReport::statusName(item.status)},
             {QStringLiteral("summary"), item.summary},
             {QStringLiteral("fix"), item.fix}});
    }
    const CheckStatus result = report.result();
    log(result == CheckStatus::Fail   ? LogLevel::Error
        : result == CheckStatus::Warn ? LogLevel::Warn
                                      : LogLevel::Info,
        QStringLiteral("preflight check: %1 (%2 items, %3 ms)")
            .arg(CheckReport::statusName(result))
            .arg(report.items.size())
            .arg(report.elapsedMs),
        {{QStringLiteral("event"), QStringLiteral("check")},
         {QStringLiteral("result"), CheckReport::statusName(result)},
         {QStringLiteral("items"), static_cast<int>(report.items.size())},
         {QStringLiteral("failed"), static_cast<int>(failed.size())},
         {QStringLiteral("warned"), static_cast<int>(report.ids(CheckStatus::Warn).size())},
         {QStringLiteral("elapsedMs"), report.elapsedMs}});
    m_checkFailed = result == CheckStatus::Fail;
    // /readyz names the first few; the log has every one (one check-item line each).
    constexpr qsizetype kNamed = 3;
    QStringList named = failed.mid(0, kNamed);
    if (failed.size() > kNamed)
        named << QStringLiteral("and %1 more (the check-item log lines name each)")
                     .arg(failed.size() - kNamed);
    m_readiness.failedCheck = named.join(QStringLiteral("; "));
}

void DaemonLoop::tick()
{
    if (m_stopRequested)
        return;
    // A failed check is looked at again each interval, so /readyz recovers once it is fixed.
    if (m_checkFailed && !m_check->busy())
        m_check->start(m_config);
    if (m_inFlight) {
        // Never two runs at once: this tick's run would only queue behind the one in flight.
        log(LogLevel::Warn,
            QStringLiteral("tick skipped: the run started %1 s ago is still in flight")
                .arg(m_inFlightFor.elapsed() / 1000),
            {{QStringLiteral("event"), QStringLiteral("tick-skipped")},
             {QStringLiteral("inFlightMs"), m_inFlightFor.elapsed()}});
        return;
    }
    m_inFlight = true;
    m_inFlightExecutes = executeActions();
    m_inFlightFor.start();
    // The id is made here so the run-start line carries it too (issue 18): a search for one
    // run id finds every line of that run.
    const QString runId = RunReport::newRunId();
    log(LogLevel::Info, QStringLiteral("run %1 starting").arg(runId),
        {{QStringLiteral("event"), QStringLiteral("run-start")},
         {QStringLiteral("runId"), runId},
         {QStringLiteral("trigger"), QStringLiteral("daemon")},
         {QStringLiteral("policy"), policyName(m_config.run.policy)},
         {QStringLiteral("dryRun"), m_options.dryRun}});
    // Every run, not once at start: verification off must stay visible in any log window.
    const QString insecure = m_config.redis.tls.insecureWarning(m_config.redis.serverName());
    if (!insecure.isEmpty())
        log(LogLevel::Warn, insecure,
            {{QStringLiteral("event"), QStringLiteral("tls-insecure")},
             {QStringLiteral("runId"), runId}});
    RecoveryWorker *worker = m_recovery->worker();
    const bool dryRun = m_options.dryRun;
    const bool execute = m_inFlightExecutes;
    QMetaObject::invokeMethod(
        worker,
        [worker, dryRun, execute, runId] {
            worker->runNow(QStringLiteral("daemon"), dryRun, execute, QStringLiteral("daemon"),
                           runId);
        },
        Qt::QueuedConnection);
}

void DaemonLoop::onProgress(const QString &phase)
{
    if (!m_options.dryRun)
        m_metrics.setLockHeld(holdsLockIn(phase));
}

void DaemonLoop::onRunFinished(const RunReport &report)
{
    m_inFlight = false;
    m_metrics.setLockHeld(false);
    m_metrics.recordRun(report);
    QList<LogRecord> records = describeRun(report, m_inFlightExecutes);
    if (m_stopRequested)
        records.last().fields.append({QStringLiteral("stopRequested"), true});
    for (const LogRecord &rec : records)
        log(rec.level, rec.message, rec.fields);
    m_readiness.lastRunSummary =
        QStringLiteral("%1 %2").arg(report.runId, RunReport::outcomeName(report.outcome));
    if (!report.outcomeDetail.isEmpty())
        m_readiness.lastRunSummary += QStringLiteral(": ") + report.outcomeDetail;
    if (report.outcome == RunReport::Outcome::Completed ||
        report.outcome == RunReport::Outcome::SkippedLockHeld) {
        m_readiness.lastDecidedAt = report.finishedAt;
        m_readiness.lastDecidedRunId = report.runId;
    }
    if (m_stopRequested) {
        log(LogLevel::Info, QStringLiteral("the run in flight has finished; stopping"),
            {{QStringLiteral("event"), QStringLiteral("stopping")},
             {QStringLiteral("runId"), report.runId},
             {QStringLiteral("lockReleased"), report.lock.released}});
        emit stopped();
    }
}

void DaemonLoop::reload()
{
    auto fresh = ConfigLoader::loadFile(m_options.configPath);
    if (!fresh) {
        m_metrics.recordConfigReload(false);
        log(LogLevel::Error,
            QStringLiteral("configuration reload refused; keeping the running configuration: %1")
                .arg(fresh.error().toString()),
            {{QStringLiteral("event"), QStringLiteral("config-refused")},
             {QStringLiteral("config"), m_options.configPath},
             {QStringLiteral("keyPath"), fresh.error().keyPath},
             {QStringLiteral("problem"), fresh.error().problem}});
        return;
    }
    const auto before = interval();
    m_config = std::move(*fresh);
    m_metrics.recordConfigReload(true);
    RecoveryWorker *worker = m_recovery->worker();
    // Queued behind a run in flight, so it applies from the next run.
    QMetaObject::invokeMethod(
        worker, [worker, config = m_config] { worker->setConfig(config); }, Qt::QueuedConnection);
    m_metrics.setRunInterval(interval().count());
    m_readiness.interval = interval();
    // The new configuration is checked as at start (a check in flight answers for the old one;
    // a failing one is repeated at the next interval anyway).
    if (!m_check->busy())
        m_check->start(m_config);
    if (interval() != before && m_timer.isActive())
        m_timer.start(interval());
    log(LogLevel::Info, QStringLiteral("configuration reloaded; it applies from the next run"),
        {{QStringLiteral("event"), QStringLiteral("config-reloaded")},
         {QStringLiteral("config"), m_options.configPath},
         {QStringLiteral("policy"), policyName(m_config.run.policy)},
         {QStringLiteral("intervalSeconds"), static_cast<qint64>(interval().count())},
         {QStringLiteral("domains"), static_cast<int>(m_config.domains.size())},
         {QStringLiteral("postgres"), m_config.postgres.redacted()},
         {QStringLiteral("redis"), m_config.redis.redacted()}});
}

void DaemonLoop::stop(const QString &why)
{
    if (m_stopRequested) {
        log(LogLevel::Info,
            QStringLiteral("%1: already stopping; waiting for the run in flight").arg(why),
            {{QStringLiteral("event"), QStringLiteral("stopping")}});
        return;
    }
    m_stopRequested = true;
    m_timer.stop();
    m_stopping->store(true);
    if (!m_inFlight) {
        log(LogLevel::Info, QStringLiteral("%1: stopping").arg(why),
            {{QStringLiteral("event"), QStringLiteral("stopping")}});
        emit stopped();
        return;
    }
    m_recovery->worker()->requestStop();
    log(LogLevel::Info,
        QStringLiteral("%1: stopping after the run in flight finishes its current action and "
                       "releases the lock")
            .arg(why),
        {{QStringLiteral("event"), QStringLiteral("stop-requested")},
         {QStringLiteral("inFlightMs"), m_inFlightFor.elapsed()}});
}

Readiness DaemonLoop::readiness() const
{
    return evaluateReadiness(m_readiness, QDateTime::currentDateTimeUtc());
}

} // namespace reclaim
