// The reference app's workers for the soak test: real bullmq Worker processes (refapp/soak.js)
// that the test starts, SIGKILLs at random and replaces, with every event they print recorded.
#pragma once

#include "support/sandboxenv.h"

#include <QHash>
#include <QList>
#include <QProcess>
#include <QRandomGenerator>
#include <memory>
#include <vector>

namespace reclaim::test {

struct WorkerEvent
{
    QString type; // take, start, done, lost
    QString rowId;
    qint64 pid = 0;
    qint64 atMs = 0;
};

class SoakWorkers final
{
public:
    SoakWorkers(SandboxEnv env, int seed) : m_env(std::move(env)), m_seed(seed) {}
    ~SoakWorkers();
    Q_DISABLE_COPY_MOVE(SoakWorkers)

    void spawn(const QString &queue);
    // SIGKILLs one random worker and starts a replacement on the same queue.
    void killOne(QRandomGenerator &rng);
    void poll();

    const QList<WorkerEvent> &events() const { return m_events; }
    const QHash<qint64, qint64> &killedAt() const { return m_killedAt; } // pid → epoch ms

private:
    struct Worker
    {
        QString queue;
        std::unique_ptr<QProcess> process;
        QByteArray pending;
    };
    SandboxEnv m_env;
    int m_seed;
    std::vector<Worker> m_workers;
    QList<WorkerEvent> m_events;
    QHash<qint64, qint64> m_killedAt;
};

} // namespace reclaim::test
