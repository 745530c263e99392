// The daemon's schedule: the preflight check and a run at start, then a run every interval
// through the recovery worker thread, never two at once (and the check again while it fails);
// reload on request; a stop that lets the run in flight end cleanly.
#pragma once

#include "config/reclaimconfig.h"
#include "daemon/readiness.h"
#include "domain/runreport.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>
#include <optional>

namespace reclaim {

class CheckRunner;
struct CheckReport;
class MetricsRegistry;
class RecoveryThread;

class DaemonLoop final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString configPath;
        bool dryRun = false;
        std::optional<int> intervalSeconds; // --interval: wins over the file's run.intervalSeconds
    };

    DaemonLoop(ReclaimConfig config, Options options, MetricsRegistry &metrics,
               QObject *parent = nullptr);
    ~DaemonLoop() override;
    Q_DISABLE_COPY_MOVE(DaemonLoop)

    void start();
    // Re-reads and validates the configuration file. A file that does not validate is refused
    // and the running configuration stays; a good one applies from the next run.
    void reload();
    // No new runs; a run in flight stops after its current action and releases the lock, then
    // stopped() is emitted.
    void stop(const QString &why);

    std::chrono::seconds interval() const;
    Readiness readiness() const;

signals:
    void stopped();

private:
    void tick();
    void onProgress(const QString &phase);
    void onRunFinished(const RunReport &report);
    void onCheckFinished(const CheckReport &report);
    bool executeActions() const;

    ReclaimConfig m_config;
    Options m_options;
    MetricsRegistry &m_metrics;
    // Shared with a direct connection on the worker thread (see the constructor).
    std::shared_ptr<std::atomic_bool> m_stopping;
    std::unique_ptr<RecoveryThread> m_recovery;
    std::unique_ptr<CheckRunner> m_check; // the preflight, on a thread of its own
    bool m_checkFailed = false;
    QTimer m_timer;
    bool m_inFlight = false;
    bool m_inFlightExecutes = false;
    bool m_stopRequested = false;
    QElapsedTimer m_inFlightFor;
    ReadinessInput m_readiness;
};

} // namespace reclaim
