#include "candidaterows.h"

#include "config/connectionurl.h"
#include "verdictstyle.h"

#include <algorithm>

namespace reclaim::ui {

namespace {

QString keyOf(const QString &domain, const QString &rowId)
{
    return domain + QLatin1Char('/') + rowId;
}

// The report with every candidate's domain filled in (a job store may leave it to the domain),
// and each domain's verdicts counted once, here, for the domain list, the chart and the filter.
std::shared_ptr<const RunReport> preparedForDisplay(const RunReport &report)
{
    auto copy = std::make_shared<RunReport>(report); // shares every list until one is written
    for (DomainReport &d : copy->domains)            // copies the few domains, not their candidates
        d.settledCounts = std::as_const(d).counts();
    for (qsizetype d = 0; d < copy->domains.size(); ++d) {
        const QList<CandidateVerdict> &candidates = std::as_const(copy->domains).at(d).candidates;
        if (std::none_of(candidates.cbegin(), candidates.cend(),
                         [](const CandidateVerdict &c) { return c.candidate.domain.isEmpty(); }))
            continue;
        DomainReport &domain = copy->domains[d]; // the only write: a copy of this domain's list
        for (CandidateVerdict &c : domain.candidates)
            if (c.candidate.domain.isEmpty())
                c.candidate.domain = domain.name;
    }
    return copy;
}

bool sameSighting(const Sighting &a, const Sighting &b)
{
    return a.queue == b.queue && a.jobId == b.jobId && a.how == b.how && a.state == b.state &&
           a.error == b.error && a.lockTtlMs == b.lockTtlMs && a.attempts == b.attempts &&
           a.failedReason == b.failedReason && a.processedOn == b.processedOn &&
           a.finishedOn == b.finishedOn;
}

bool sameAction(const std::shared_ptr<const Action> &a, const std::shared_ptr<const Action> &b)
{
    if (!a || !b)
        return !a && !b;
    return a->kind == b->kind && a->result == b->result && a->resultDetail == b->resultDetail &&
           a->reason == b->reason && a->payload == b->payload &&
           a->precondition.generation == b->precondition.generation &&
           a->precondition.updatedAtText == b->precondition.updatedAtText;
}

} // namespace

QString typeTextOf(const Candidate &c)
{
    return c.type.isEmpty() ? QStringLiteral("-") : c.type;
}

QString CandidateRow::plannedTextOf(const CandidateRow &row)
{
    if (!row.action) {
        switch (row.verdict->verdict) {
        case Verdict::Unknown:
            return QStringLiteral("none: looks again next run");
        case Verdict::Scheduled:
            return QStringLiteral("none");
        case Verdict::Absent:
            return QStringLiteral("none planned");
        }
    }
    const Action &a = *row.action;
    QString text = a.kind == ActionKind::Requeue ? QStringLiteral("REQUEUE to %1").arg(a.queue)
                                                 : QStringLiteral("FAIL the row");
    if (a.kind == ActionKind::Requeue && a.queue.isEmpty())
        text = QStringLiteral("REQUEUE");
    if (row.approving)
        return text + QStringLiteral(": running\u2026");
    if (a.result != ActionResult::Pending)
        text += QStringLiteral(": ") + actionOutcomeText(a);
    return text;
}

const QString &CandidateRow::summary() const
{
    if (!m_summary)
        m_summary = redactSecrets(verdict->summary());
    return *m_summary;
}

bool CandidateRow::mentions(QStringView word) const
{
    const Candidate &c = verdict->candidate;
    for (const QString *field : {&c.domain, &c.id, &c.type, &c.status, &summary(), &planned})
        if (field->contains(word, Qt::CaseInsensitive))
            return true;
    return verdictName(verdict->verdict).contains(word, Qt::CaseInsensitive);
}

QString CandidateRow::searchText() const
{
    const Candidate &c = verdict->candidate;
    return QStringList{c.domain,  c.id,   c.type, c.status, verdictName(verdict->verdict),
                       summary(), planned}
        .join(QLatin1Char('\n'))
        .toLower();
}

// showsTheSame and displayHashOf read the same fields: a field shown in the table belongs in
// both, or a refresh misses its change.
bool showsTheSame(const CandidateRow &a, const CandidateRow &b)
{
    const Candidate &ca = a.verdict->candidate;
    const Candidate &cb = b.verdict->candidate;
    // The summary is made of the verdict, the sightings, the unknown reason and whether a scan
    // ran: comparing those needs no summary built.
    if (a.verdict->verdict != b.verdict->verdict ||
        a.verdict->unknownReason != b.verdict->unknownReason ||
        a.verdict->scanned != b.verdict->scanned || a.planned != b.planned ||
        ca.status != cb.status || ca.updatedAtText != cb.updatedAtText || ca.type != cb.type ||
        ca.rowJson != cb.rowJson || !sameAction(a.action, b.action) ||
        a.verdict->evidence.size() != b.verdict->evidence.size())
        return false;
    for (qsizetype i = 0; i < a.verdict->evidence.size(); ++i)
        if (!sameSighting(a.verdict->evidence.at(i), b.verdict->evidence.at(i)))
            return false;
    return true;
}

quint64 displayHashOf(const CandidateRow &row)
{
    const CandidateVerdict &v = *row.verdict;
    const Candidate &c = v.candidate;
    size_t h = qHashMulti(0, int(v.verdict), v.unknownReason, v.scanned, row.planned, c.status,
                          c.updatedAtText, c.type, c.rowJson, v.evidence.size());
    if (const Action *a = row.action.get())
        h = qHashMulti(h, int(a->kind), int(a->result), a->resultDetail, a->reason, a->payload,
                       a->precondition.generation, a->precondition.updatedAtText);
    for (const Sighting &s : v.evidence)
        h = qHashMulti(h, s.queue, s.jobId, int(s.how), s.state, s.error.has_value(),
                       s.error.value_or(QString()), s.lockTtlMs, s.attempts, s.failedReason,
                       s.processedOn, s.finishedOn);
    return h == 0 ? 1 : quint64(h);
}

qint64 ageSecondsOf(const CandidateRow &row, std::optional<qint64> nowSecs)
{
    return row.updatedAtSecs && nowSecs ? *nowSecs - *row.updatedAtSecs : -1;
}

int compareCandidateRows(const CandidateRow &a, const CandidateRow &b, int column,
                         std::optional<qint64> nowSecs)
{
    const Candidate &ca = a.verdict->candidate;
    const Candidate &cb = b.verdict->candidate;
    switch (column) {
    case VerdictColumn:
        return verdictSeverity(a.verdict->verdict) - verdictSeverity(b.verdict->verdict);
    case DomainColumn:
        return ca.domain.compare(cb.domain);
    case IdColumn:
        return ca.id.compare(cb.id);
    case TypeColumn:
        return typeTextOf(ca).compare(typeTextOf(cb));
    case StatusColumn:
        return ca.status.compare(cb.status);
    case AgeColumn: {
        const qint64 x = ageSecondsOf(a, nowSecs);
        const qint64 y = ageSecondsOf(b, nowSecs);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    case EvidenceColumn:
        return a.summary().compare(b.summary());
    case ActionColumn:
        return a.planned.compare(b.planned);
    default:
        return 0;
    }
}

bool candidateRowBefore(const CandidateRow &a, const CandidateRow &b, CandidateOrder order,
                        std::optional<qint64> nowSecs)
{
    if (const int c = compareCandidateRows(a, b, order.column, nowSecs); c != 0)
        return order.order == Qt::AscendingOrder ? c < 0 : c > 0;
    // Ties, whichever way the column goes: the oldest first, then by key, so the order is total
    // and the same across refreshes.
    const qint64 x = ageSecondsOf(a, nowSecs);
    const qint64 y = ageSecondsOf(b, nowSecs);
    if (x != y)
        return x > y;
    return a.key < b.key;
}

void sortCandidateRows(CandidateRows &rows, CandidateOrder order)
{
    const std::optional<qint64> nowSecs =
        rows.now.isValid() ? std::optional(rows.now.toSecsSinceEpoch()) : std::nullopt;
    std::sort(rows.rows.begin(), rows.rows.end(),
              [&](const CandidateRow &a, const CandidateRow &b) {
                  return candidateRowBefore(a, b, order, nowSecs);
              });
    rows.order = order;
    rows.index.clear();
    rows.index.reserve(rows.rows.size());
    for (qsizetype i = 0; i < rows.rows.size(); ++i)
        rows.index.insert(rows.rows.at(i).key, static_cast<int>(i));
}

CandidateRows buildCandidateRows(const RunReport &report, CandidateOrder order)
{
    CandidateRows out;
    out.report = preparedForDisplay(report);
    out.now = report.finishedAt.isValid() ? report.finishedAt : QDateTime::currentDateTimeUtc();
    out.actions = planActions(report);

    qsizetype total = 0;
    for (const DomainReport &d : out.report->domains)
        total += d.candidates.size();
    out.rows.reserve(total);
    for (const DomainReport &d : out.report->domains) {
        for (const CandidateVerdict &c : d.candidates) {
            CandidateRow &r = out.rows.emplace_back();
            r.verdict = &c;
            r.key = keyOf(c.candidate.domain, c.candidate.id);
            if (const int at = out.actions.index.value(r.key, -1); at >= 0)
                r.action = out.actions.entries.at(at).action;
            if (c.candidate.updatedAt.isValid())
                r.updatedAtSecs = c.candidate.updatedAt.toSecsSinceEpoch();
            r.refreshPlanned();
            r.displayHash = displayHashOf(r);
        }
    }
    sortCandidateRows(out, order);
    return out;
}

} // namespace reclaim::ui
