// The audit trail on its own thread: pages of reclaim.audit and exports of it, so that neither
// the console's UI thread nor its recovery thread (busy with a run) waits for the history.
// Commands are queued slot calls; answers are queued signals.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/audittrail.h"

#include <QObject>
#include <QThread>
#include <memory>

namespace reclaim {

class AuditWorker final : public QObject
{
    Q_OBJECT
public:
    explicit AuditWorker(ReclaimConfig config);
    ~AuditWorker() override;
    Q_DISABLE_COPY_MOVE(AuditWorker)

    // Called on the worker's thread (queued from the console).
    void setConfig(const reclaim::ReclaimConfig &config);
    // Answers with pageLoaded(ticket, ...): the caller's ticket tells a stale answer from the
    // current one.
    void loadPage(int ticket, const reclaim::AuditPageRequest &request);
    // Every row matching `filter`, newest first, to `path` (JSON for ".json", CSV otherwise).
    void exportAll(const reclaim::AuditFilter &filter, const QString &path);

signals:
    void pageLoaded(int ticket, const reclaim::AuditPage &page, const QString &error);
    void exportFinished(const QString &path, qint64 rows, const QString &error);

private:
    // The connection, opened on first use and again after a failure.
    AuditTrail *trail(QString *error);

    ReclaimConfig m_config;
    std::unique_ptr<AuditTrail> m_trail;
};

// Owns a QThread running one AuditWorker; quit + wait on destruction.
class AuditThread final
{
public:
    explicit AuditThread(ReclaimConfig config);
    ~AuditThread();
    Q_DISABLE_COPY_MOVE(AuditThread)

    AuditWorker *worker() const { return m_worker; }

private:
    QThread m_thread;
    AuditWorker *m_worker;
};

void registerAuditMetaTypes();

} // namespace reclaim

Q_DECLARE_METATYPE(reclaim::AuditPageRequest)
Q_DECLARE_METATYPE(reclaim::AuditPage)
Q_DECLARE_METATYPE(reclaim::AuditFilter)
