#include "plannedactions.h"

#include "domain/runreport.h"

#include <algorithm>

static_assert(static_cast<int>(reclaim::ActionResult::Error) < 16,
              "PlannedActions::resultCounts has a slot per ActionResult");

namespace reclaim::ui {

namespace {

// Distinct texts, each with the first row that has it: a linear search, as a column holds a
// handful (statuses, operators) however many rows it has.
struct DistinctTexts
{
    QStringList texts;
    QList<int> rows;
    void see(const QString &text, int row)
    {
        if (!texts.contains(text)) {
            texts << text;
            rows << row;
        }
    }
};

} // namespace

ActionWidthSamples widthSamplesOf(const QList<ActionEntry> &entries)
{
    // One pass over every row for every column: at 200,000 actions a pass is tens of
    // milliseconds, which a fresh plan spends where it is built, off the UI thread.
    constexpr int kLongestIds = 3;
    ActionWidthSamples out;
    if (entries.isEmpty())
        return out;
    out[ActionsTable::TimeColumn] = {0}; // one fixed format
    QList<std::pair<qsizetype, int>> longest;
    quint64 resultCodes = 0; // bit: result * 4 + approving * 2 + recording
    quint64 kinds = 0;
    DistinctTexts rejecters;
    DistinctTexts statuses;
    for (int row = 0; row < entries.size(); ++row) {
        const ActionEntry &e = entries.at(row);
        const Action &a = *e.action;
        // Job: the longest by character count, the widest give or take the glyphs.
        const qsizetype length = a.id.size();
        if (longest.size() < kLongestIds || length > longest.last().first) {
            longest << std::pair{length, row};
            std::sort(longest.begin(), longest.end(), std::greater<>());
            if (longest.size() > kLongestIds)
                longest.removeLast();
        }
        // Result, kind and precondition: one row per distinct shape of the text (keys built
        // without formatting).
        if (a.result == ActionResult::Rejected && !a.rejectedBy.isEmpty()) {
            rejecters.see(a.rejectedBy.section(u'@', 0, 0), row);
        } else {
            const quint64 bit = quint64(1)
                                << (int(a.result) * 4 + int(e.approving) * 2 + int(e.recording));
            if (!(resultCodes & bit))
                out[ActionsTable::ResultColumn] << row;
            resultCodes |= bit;
        }
        const quint64 kind = quint64(1) << int(a.kind);
        if (!(kinds & kind))
            out[ActionsTable::KindColumn] << row;
        kinds |= kind;
        statuses.see(a.precondition.status, row);
    }
    for (const auto &[length, row] : longest)
        out[ActionsTable::JobColumn] << row;
    out[ActionsTable::ResultColumn] << rejecters.rows;
    out[ActionsTable::PreconditionColumn] = statuses.rows;
    return out;
}

PlannedActions planActions(const RunReport &report)
{
    PlannedActions out;
    const QDateTime plannedAt =
        report.finishedAt.isValid() ? report.finishedAt : QDateTime::currentDateTimeUtc();
    out.entries.reserve(report.actions.size());
    out.index.reserve(report.actions.size());
    for (const Action &a : report.actions) {
        out.index.insert(a.id, static_cast<int>(out.entries.size()));
        out.entries.append(ActionEntry{std::make_shared<const Action>(a), plannedAt});
        ++out.resultCounts[static_cast<size_t>(a.result)];
    }
    out.widthSamples = widthSamplesOf(out.entries);
    return out;
}

} // namespace reclaim::ui
