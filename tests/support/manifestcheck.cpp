#include "support/manifestcheck.h"

#include <QJsonArray>

namespace reclaim::test {

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

QString rowName(const QJsonObject &row)
{
    return QStringLiteral("%1/%2 [%3]").arg(str(row, "domain"), str(row, "id"), str(row, "kind"));
}

namespace {

const Sighting *findSighting(const CandidateVerdict &v, FoundBy how, const QString &queue,
                             const QString &jobId)
{
    for (const Sighting &s : v.evidence)
        if (s.how == how && s.queue == queue && s.jobId == jobId)
            return &s;
    return nullptr;
}

} // namespace

QStringList candidateProblems(const QJsonObject &row, const CandidateVerdict &v)
{
    QStringList problems;
    const QString name = rowName(row);
    if (verdictName(v.verdict) != str(row, "expectedVerdict"))
        problems << QStringLiteral("%1: verdict %2, expected %3 (%4)")
                        .arg(name, verdictName(v.verdict), str(row, "expectedVerdict"),
                             v.summary());
    for (const Sighting &s : v.evidence)
        if (s.error)
            problems << QStringLiteral("%1: a lookup failed: %2").arg(name, *s.error);
    const QString foundBy = str(row, "foundBy");
    const QString expectedState = str(row, "expectedState");
    if (!foundBy.isEmpty()) {
        const Sighting *s =
            findSighting(v, foundBy == QLatin1String("scan") ? FoundBy::Scan : FoundBy::Direct,
                         str(row, "queue"), str(row, "bullJobId"));
        if (!s) {
            problems << QStringLiteral("%1: no %2 sighting of %3 in %4 (%5)")
                            .arg(name, foundBy, str(row, "bullJobId"), str(row, "queue"),
                                 v.summary());
        } else {
            if (s->state != expectedState)
                problems << QStringLiteral("%1: state %2, expected %3")
                                .arg(name, s->state, expectedState);
            if (row.contains(QStringLiteral("lockHeld")) &&
                (s->lockTtlMs > 0) != row.value(QStringLiteral("lockHeld")).toBool())
                problems << QStringLiteral("%1: worker lock TTL %2 ms, expected lock held = %3")
                                .arg(name)
                                .arg(s->lockTtlMs)
                                .arg(row.value(QStringLiteral("lockHeld")).toBool());
        }
    } else {
        // Nothing under any id: every lookup must have said "no such job".
        for (const Sighting &s : v.evidence)
            if (s.state != QLatin1String("missing"))
                problems << QStringLiteral("%1: expected nothing in %2 under %3, saw %4")
                                .arg(name, s.queue, s.jobId, s.state);
    }
    const QJsonObject retained = row.value(QStringLiteral("retained")).toObject();
    if (!retained.isEmpty() && !retained.value(QStringLiteral("legacy")).toBool()) {
        const Sighting *s =
            findSighting(v, FoundBy::Direct, str(retained, "queue"), str(retained, "bullJobId"));
        if (!s || s->state != str(retained, "state"))
            problems << QStringLiteral("%1: retained %2 job not seen under %3")
                            .arg(name, str(retained, "state"), str(retained, "bullJobId"));
    }
    return problems;
}

QStringList verdictProblems(const QJsonObject &manifest, const RunReport &report)
{
    QStringList problems;
    int candidates = 0;
    for (const QJsonValue &value : manifest.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = value.toObject();
        const CandidateVerdict *v = report.find(str(row, "domain"), str(row, "id"));
        if (!row.value(QStringLiteral("candidate")).toBool()) {
            if (v)
                problems << QStringLiteral("%1: not a candidate, but reported as %2")
                                .arg(rowName(row), verdictName(v->verdict));
            continue;
        }
        ++candidates;
        if (!v)
            problems << QStringLiteral("%1: candidate missing from the report").arg(rowName(row));
        else
            problems << candidateProblems(row, *v);
    }
    const int reported = report.count(Verdict::Scheduled) + report.count(Verdict::Absent) +
                         report.count(Verdict::Unknown);
    if (reported != candidates)
        problems << QStringLiteral("%1 candidates reported, the manifest has %2")
                        .arg(reported)
                        .arg(candidates);
    return problems;
}

} // namespace reclaim::test
