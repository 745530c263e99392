#include "recovery/domainscan.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>

namespace reclaim {

QStringList scanOrder()
{
    return {QStringLiteral("wait"),
            QStringLiteral("paused"),
            QStringLiteral("prioritized"),
            QStringLiteral("delayed"),
            QStringLiteral("waiting-children"),
            QStringLiteral("active")};
}

namespace {

QString stateOfKey(const QString &key)
{
    return key == QLatin1String("wait") ? QStringLiteral("waiting") : key;
}

// The row id a job's payload names, or nullopt when the payload is not a JSON object.
std::optional<QString> payloadJobId(const QByteArray &data)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    const QJsonValue v = doc.object().value(QStringLiteral("jobId"));
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toInteger());
    return QString();
}

} // namespace

ScanStats scanDomain(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                     QueueInspector &inspector, int pageSize)
{
    ScanStats stats;
    QHash<QString, qsizetype> unresolved;
    for (qsizetype i = 0; i < verdicts.size(); ++i)
        if (verdicts.at(i).verdict != Verdict::Scheduled)
            unresolved.insert(verdicts.at(i).candidate.id, i);
    if (unresolved.isEmpty())
        return stats;

    stats.ran = true;
    for (const QString &queue : domain.queues) {
        for (const QString &state : scanOrder()) {
            for (qint64 offset = 0;; offset += pageSize) {
                auto page = inspector.scanPage(domain.keyPrefix, queue, state, offset, pageSize);
                if (!page) {
                    stats.error = QStringLiteral("scan of %1 %2 at %3 failed: %4")
                                      .arg(queue, state)
                                      .arg(offset)
                                      .arg(page.error().describe());
                    break;
                }
                ++stats.pages;
                stats.jobsRead += page->jobs.size();
                for (const ScanPage::Job &job : page->jobs) {
                    if (!job.data)
                        continue; // an id without a job hash cannot run
                    const auto rowId = payloadJobId(*job.data);
                    if (!rowId) {
                        ++stats.malformed;
                        continue;
                    }
                    const auto it = unresolved.constFind(*rowId);
                    if (it == unresolved.constEnd())
                        continue;
                    CandidateVerdict &v = verdicts[it.value()];
                    Sighting s;
                    s.queue = queue;
                    s.jobId = job.id;
                    s.how = FoundBy::Scan;
                    s.state = page->queuePaused && state == QLatin1String("wait")
                                  ? QStringLiteral("paused")
                                  : stateOfKey(state);
                    s.data = *job.data;
                    v.evidence << s;
                    v.verdict = Verdict::Scheduled;
                    v.unknownReason.clear();
                    unresolved.erase(it);
                }
                if (page->jobs.size() < pageSize || unresolved.isEmpty())
                    break;
            }
            if (unresolved.isEmpty())
                break;
            if (stats.error)
                break;
        }
        if (stats.error || unresolved.isEmpty())
            break;
    }
    for (auto it = unresolved.constBegin(); it != unresolved.constEnd(); ++it) {
        CandidateVerdict &v = verdicts[it.value()];
        if (v.verdict == Verdict::Scheduled)
            continue;
        v.scanned = true;
        if (stats.error) {
            v.verdict = Verdict::Unknown;
            if (v.unknownReason.isEmpty())
                v.unknownReason = *stats.error;
        }
    }
    return stats;
}

} // namespace reclaim
