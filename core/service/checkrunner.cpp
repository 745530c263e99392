#include "service/checkrunner.h"

#include "preflight/preflight.h"

namespace reclaim {

CheckRunner::CheckRunner(QObject *parent) : QObject(parent), m_worker(new QObject)
{
    qRegisterMetaType<CheckReport>();
    m_thread.setObjectName(QStringLiteral("reclaim-check"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

CheckRunner::~CheckRunner()
{
    m_thread.quit();
    m_thread.wait();
}

bool CheckRunner::start(const ReclaimConfig &config)
{
    if (m_busy)
        return false;
    m_busy = true;
    QMetaObject::invokeMethod(
        m_worker,
        [this, config] {
            CheckReport report = runPreflight(config);
            // Back on the owner's thread; dropped if the runner is gone by then (the posted call
            // dies with its context object).
            QMetaObject::invokeMethod(
                this,
                [this, report = std::move(report)] {
                    m_busy = false;
                    emit finished(report);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
    return true;
}

} // namespace reclaim
