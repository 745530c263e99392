#include "service/checkrunner.h"

#include "preflight/preflight.h"

#include <QCoreApplication>

namespace reclaim {

namespace {

// The threads of checks whose runner went away while they ran (the console's dialog closed
// mid-check). Each ends on its own — every step of a check is bounded by the configured
// timeouts — and deletes itself; the application joins any still running as it exits (see
// CheckThreadsJoin). Touched on the owners' (the GUI) thread only.
QList<QThread *> &orphans()
{
    static QList<QThread *> threads;
    return threads;
}

} // namespace

void CheckRunner::waitForOrphans()
{
    const QList<QThread *> left = std::exchange(orphans(), {});
    for (QThread *t : left) {
        t->wait();
        delete t;
    }
}

// Runs one check at a time on the runner's thread; its answer is a queued signal, which Qt
// drops if the runner is gone by then (a connection dies with its receiver).
class CheckWorker final : public QObject
{
    Q_OBJECT
public:
    void check(const ReclaimConfig &config) { emit done(runPreflight(config)); }

signals:
    void done(const reclaim::CheckReport &report);
};

CheckRunner::CheckRunner(QObject *parent)
    : QObject(parent), m_thread(new QThread), m_worker(new CheckWorker)
{
    qRegisterMetaType<CheckReport>();
    m_thread->setObjectName(QStringLiteral("reclaim-check"));
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &CheckWorker::done, this, [this](const CheckReport &report) {
        m_busy = false;
        emit finished(report);
    });
    m_thread->start();
}

CheckRunner::~CheckRunner()
{
    m_thread->quit();
    if (!m_busy) {
        m_thread->wait(); // idle: ends at once
        delete m_thread;
        return;
    }
    // A check in flight: never wait for it here (this is the UI thread, and the check may be
    // waiting out a timeout on a server that does not answer). Its thread ends when the check
    // does, and is deleted then.
    QThread *thread = m_thread;
    orphans().append(thread);
    connect(thread, &QThread::finished, thread, [thread] {
        if (orphans().removeAll(thread) > 0)
            thread->deleteLater();
    });
}

bool CheckRunner::start(const ReclaimConfig &config)
{
    if (m_busy)
        return false;
    m_busy = true;
    CheckWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, config] { worker->check(config); }, Qt::QueuedConnection);
    return true;
}

} // namespace reclaim

#include "checkrunner.moc"
