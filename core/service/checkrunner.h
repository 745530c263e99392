// Runs `reclaim --check` (preflight/preflight.h) on a thread of its own and answers with a
// signal on the owner's thread, so neither the console's UI thread nor the daemon's event loop
// waits on the network while the servers are checked.
#pragma once

#include "config/reclaimconfig.h"
#include "preflight/checkreport.h"

#include <QObject>
#include <QThread>

namespace reclaim {

class CheckWorker;

class CheckRunner final : public QObject
{
    Q_OBJECT
public:
    explicit CheckRunner(QObject *parent = nullptr);
    // Never waits for a check in flight (the owner may be a dialog the operator is closing):
    // its thread ends when the check does and deletes itself; its answer goes nowhere.
    ~CheckRunner() override;
    Q_DISABLE_COPY_MOVE(CheckRunner)

    bool busy() const { return m_busy; }

    // Starts a check of `config`; false (and nothing started) while one is in flight.
    bool start(const ReclaimConfig &config);

    // Waits for the checks whose runner went away while they ran (each is bounded by its
    // timeouts). Must run before the application object goes: a check still running while Qt
    // tears itself down would use the SQL driver it unloads.
    static void waitForOrphans();

signals:
    void finished(const reclaim::CheckReport &report);

private:
    QThread *m_thread;
    CheckWorker *m_worker; // lives on m_thread; deleted when it finishes
    bool m_busy = false;
};

// Declared right after the application object, before the windows or loops that own check
// runners: destroyed after them (so after any check is orphaned) and before the application.
struct CheckThreadsJoin
{
    CheckThreadsJoin() = default;
    ~CheckThreadsJoin() { CheckRunner::waitForOrphans(); }
    Q_DISABLE_COPY_MOVE(CheckThreadsJoin)
};

} // namespace reclaim

Q_DECLARE_METATYPE(reclaim::CheckReport)
