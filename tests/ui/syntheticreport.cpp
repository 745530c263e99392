#include "syntheticreport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>
#include <algorithm>

namespace reclaim::test {

CandidateVerdict syntheticCandidate(const QString &domain, const QString &id, Verdict verdict,
                                    int ageMinutes)
{
    CandidateVerdict v;
    v.candidate.domain = domain;
    v.candidate.id = id;
    v.candidate.type =
        domain == QLatin1String("video") ? QStringLiteral("COMPOSE") : QStringLiteral("GENERATE");
    v.candidate.status = QStringLiteral("PROCESSING");
    v.candidate.updatedAt =
        QDateTime(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC).addSecs(-60LL * ageMinutes);
    v.candidate.updatedAtText =
        v.candidate.updatedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
    v.candidate.rowJson = QJsonDocument(QJsonObject{{QStringLiteral("id"), id},
                                                    {QStringLiteral("status"), v.candidate.status}})
                              .toJson(QJsonDocument::Compact);
    v.verdict = verdict;
    Sighting s;
    s.queue = domain + QStringLiteral("-generation");
    s.jobId = domain + QLatin1Char('-') + id;
    switch (verdict) {
    case Verdict::Scheduled:
        s.state = QStringLiteral("active");
        s.lockTtlMs = 24000;
        s.attempts = QStringLiteral("1");
        s.data = QByteArrayLiteral("{\"jobId\":\"") + id.toUtf8() + QByteArrayLiteral("\"}");
        break;
    case Verdict::Absent:
        s.state = QStringLiteral("missing");
        v.scanned = true;
        break;
    case Verdict::Unknown:
        s.error = QStringLiteral("Redis timeout error: no reply within 2000 ms");
        v.unknownReason = *s.error;
        break;
    }
    v.evidence << s;
    return v;
}

Action syntheticAction(const CandidateVerdict &c, bool requeue)
{
    Action a;
    a.id = c.candidate.domain + QLatin1Char('/') + c.candidate.id;
    a.domain = c.candidate.domain;
    a.rowId = c.candidate.id;
    a.jobType = c.candidate.type;
    a.kind = requeue ? ActionKind::Requeue : ActionKind::Fail;
    a.reason = QStringLiteral("orphaned");
    a.precondition = Precondition{c.candidate.status, c.candidate.updatedAtText, 7};
    if (requeue) {
        a.queue = c.candidate.domain + QStringLiteral("-generation");
        a.jobId = c.candidate.domain + QStringLiteral("-compose-") + c.candidate.id;
        a.jobName = QStringLiteral("compose");
        a.payload = QByteArrayLiteral("{\"jobId\":\"") + c.candidate.id.toUtf8() +
                    QByteArrayLiteral("\",\"tracks\":[]}");
    }
    return a;
}

RunReport syntheticReport(const QList<CandidateVerdict> &candidates, const QDateTime &finishedAt)
{
    RunReport r;
    r.runId = QStringLiteral("synthetic");
    r.trigger = QStringLiteral("console");
    r.finishedAt =
        finishedAt.isValid() ? finishedAt : QDateTime(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC);
    r.startedAt = r.finishedAt.addMSecs(-250);
    r.lock.state = LockReport::State::Acquired;
    r.lock.generation = 7;
    for (const CandidateVerdict &c : candidates) {
        auto it = std::find_if(r.domains.begin(), r.domains.end(),
                               [&](const DomainReport &d) { return d.name == c.candidate.domain; });
        if (it == r.domains.end()) {
            r.domains << DomainReport{};
            r.domains.last().name = c.candidate.domain;
            it = r.domains.end() - 1;
        }
        it->candidates << c;
        if (c.verdict == Verdict::Absent)
            r.actions << syntheticAction(c, c.candidate.type == QLatin1String("COMPOSE"));
    }
    return r;
}

QList<CandidateVerdict> manyCandidates(int count)
{
    static const QString domains[] = {QStringLiteral("slide"), QStringLiteral("video"),
                                      QStringLiteral("image")};
    static const Verdict verdicts[] = {Verdict::Unknown, Verdict::Absent, Verdict::Scheduled};
    QList<CandidateVerdict> out;
    out.reserve(count);
    for (int i = 0; i < count; ++i)
        out << syntheticCandidate(domains[i % 3],
                                  QStringLiteral("row-%1").arg(i, 5, 10, QLatin1Char('0')),
                                  verdicts[(i / 3) % 3], 60 + i % 500);
    return out;
}

} // namespace reclaim::test
