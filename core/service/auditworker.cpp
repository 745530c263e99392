#include "service/auditworker.h"

#include "postgres/pgaudittrail.h"
#include "service/auditexport.h"

namespace reclaim {

namespace {

constexpr int kExportPage = 2000;

} // namespace

void registerAuditMetaTypes()
{
    qRegisterMetaType<AuditPageRequest>();
    qRegisterMetaType<AuditPage>();
    qRegisterMetaType<AuditFilter>();
}

AuditWorker::AuditWorker(ReclaimConfig config) : m_config(std::move(config)) {}

AuditWorker::~AuditWorker() = default;

void AuditWorker::setConfig(const ReclaimConfig &config)
{
    m_config = config;
    m_trail.reset();
}

AuditTrail *AuditWorker::trail(QString *error)
{
    if (!m_trail) {
        auto opened = PgAuditTrail::open(m_config);
        if (!opened) {
            *error = opened.error().message;
            return nullptr;
        }
        m_trail = std::move(*opened);
    }
    return m_trail.get();
}

void AuditWorker::loadPage(int ticket, const AuditPageRequest &request)
{
    QString error;
    AuditTrail *t = trail(&error);
    if (!t) {
        emit pageLoaded(ticket, {}, error);
        return;
    }
    auto page = t->page(request);
    if (!page) {
        m_trail.reset(); // a broken connection must not poison the next page
        emit pageLoaded(ticket, {}, page.error().message);
        return;
    }
    emit pageLoaded(ticket, *page, {});
}

void AuditWorker::exportAll(const AuditFilter &filter, const QString &path)
{
    QString error;
    AuditTrail *t = trail(&error);
    if (!t) {
        emit exportFinished(path, 0, error);
        return;
    }
    AuditFileWriter writer;
    if (!writer.open(path, &error)) {
        emit exportFinished(path, 0, error);
        return;
    }
    AuditPageRequest request{filter, 0, kExportPage};
    for (;;) {
        auto page = t->page(request);
        if (!page) {
            m_trail.reset();
            writer.cancel(); // a partial file must not pass for the whole audit
            emit exportFinished(path, 0, page.error().message);
            return;
        }
        writer.write(page->entries);
        if (!page->more || page->entries.isEmpty())
            break;
        request.beforeId = page->entries.last().id;
    }
    if (!writer.finish(&error)) {
        emit exportFinished(path, 0, error);
        return;
    }
    emit exportFinished(path, writer.written(), {});
}

AuditThread::AuditThread(ReclaimConfig config) : m_worker(new AuditWorker(std::move(config)))
{
    registerAuditMetaTypes();
    m_thread.setObjectName(QStringLiteral("reclaim-audit"));
    m_worker->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

AuditThread::~AuditThread()
{
    m_thread.quit();
    m_thread.wait();
}

} // namespace reclaim
