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

// The report with every candidate's domain filled in (a job store may leave it to the domain).
std::shared_ptr<const RunReport> withDomainsFilledIn(const RunReport &report)
{
    auto copy = std::make_shared<RunReport>(report); // shares every list until one is written
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

} // namespace

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

CandidateRows buildCandidateRows(const RunReport &report)
{
    CandidateRows out;
    out.report = withDomainsFilledIn(report);
    out.now = report.finishedAt.isValid() ? report.finishedAt : QDateTime::currentDateTimeUtc();

    QHash<QString, const Action *> actions;
    actions.reserve(report.actions.size());
    for (const Action &a : report.actions)
        actions.insert(a.id, &a);
    qsizetype total = 0;
    for (const DomainReport &d : out.report->domains)
        total += d.candidates.size();
    out.rows.reserve(total);
    out.index.reserve(total);
    for (const DomainReport &d : out.report->domains) {
        for (const CandidateVerdict &c : d.candidates) {
            CandidateRow &r = out.rows.emplace_back();
            r.verdict = &c;
            r.key = keyOf(c.candidate.domain, c.candidate.id);
            if (const auto it = actions.constFind(r.key); it != actions.cend())
                r.action = std::make_shared<const Action>(**it);
            if (c.candidate.updatedAt.isValid())
                r.updatedAtSecs = c.candidate.updatedAt.toSecsSinceEpoch();
            r.refreshPlanned();
            out.index.insert(r.key, static_cast<int>(out.rows.size() - 1));
        }
    }
    return out;
}

} // namespace reclaim::ui
