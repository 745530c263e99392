// The candidate table's rows built from a run's report: each points at its candidate in the
// report and carries what the table sorts by. Building them is pure and touches no widget or
// model, so it can run on any thread: the console builds them, in the order the table shows, on
// the recovery thread, and the UI thread only swaps them in.
#pragma once

#include "domain/runreport.h"
#include "plannedactions.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QStringView>
#include <memory>
#include <optional>

namespace reclaim::ui {

// The candidate table's columns (CandidateTableModel::Column).
enum CandidateColumn
{
    VerdictColumn,
    DomainColumn,
    IdColumn,
    TypeColumn,
    StatusColumn,
    AgeColumn,
    ActionColumn,
    EvidenceColumn, // last: the long one, elided first where the table is narrow
    ColumnCount
};

// The order of the table's rows: by one column, then the oldest first, then by key. The default
// is the worst first: UNKNOWN, ABSENT, SCHEDULED.
struct CandidateOrder
{
    int column = VerdictColumn;
    Qt::SortOrder order = Qt::AscendingOrder;
    bool operator==(const CandidateOrder &) const = default;
};

struct CandidateRow
{
    // The candidate, inside the report its CandidateRows (and then the model) keeps alive. Not a
    // copy: copying 20,000 verdicts touches ten shared strings each, which costs more than
    // building everything else in the row.
    const CandidateVerdict *verdict = nullptr;
    QString key; // "<domain>/<row id>", the same as the planned Action's id
    // The planned action, if any. Out of line: an Action is larger than the rest of the row and
    // few rows have one, and every byte of a row is paid 20,000 times per report.
    std::shared_ptr<const Action> action;
    bool approving = false; // an approval is in flight on the worker
    QString planned;        // what the "Planned action" column says (see refreshPlanned)
    // updatedAt in whole seconds since the epoch, so ages and the sort never convert a QDateTime
    // (std::nullopt: no valid updatedAt, shown as "-").
    std::optional<qint64> updatedAtSecs;
    // A 64-bit hash of everything the row shows but its age (displayHashOf), taken where the row
    // is built, off the UI thread: a refresh compares two numbers per row instead of every field
    // of two reports. 0: not known (the UI changed the row since), compare the fields.
    quint64 displayHash = 0;

    // The one-line evidence, secrets redacted. Built on first use and kept: the table needs it for
    // the rows on screen, and for every row only once the filter or the evidence sort asks, so
    // building 20,000 of them with each report would mostly be wasted. Only the UI thread asks
    // (a row is handed over once built), so the cache needs no lock.
    const QString &summary() const;
    // Recomputes `planned` after `action` or `approving` changed.
    void refreshPlanned() { planned = plannedTextOf(*this); }
    // Whether `word` appears, ignoring case, in the text the table shows for this row (the
    // filter). Searched in place: a lower-cased copy of every row's text would double the
    // memory a report takes, for a filter that is mostly empty.
    bool mentions(QStringView word) const;
    // That text, lower-cased, one field per line.
    QString searchText() const;

    static QString plannedTextOf(const CandidateRow &row);

private:
    mutable std::optional<QString> m_summary;
};

struct CandidateRows
{
    std::shared_ptr<const RunReport> report; // what every row's `verdict` points into
    QList<CandidateRow> rows;                // in `order`
    QHash<QString, int> index;               // key -> position in `rows`
    QDateTime now; // the report's finishedAt: what every age is measured against
    CandidateOrder order;
    // The run's planned actions, which the rows' `action` share (and the actions table takes).
    PlannedActions actions;
};

// Builds the rows of every candidate in `report`, each with its planned action, in `order`.
CandidateRows buildCandidateRows(const RunReport &report, CandidateOrder order = {});

// Whether two rows show the same but their age, field by field (what displayHashOf hashes).
bool showsTheSame(const CandidateRow &a, const CandidateRow &b);
// The hash of what `row` shows but its age (never 0): the verdict, its evidence and unknown
// reason, whether a scan ran, the row's status, updatedAt, type and JSON, the planned action.
quint64 displayHashOf(const CandidateRow &row);

// What the Type column shows for a candidate ("-": the domain has no type column).
QString typeTextOf(const Candidate &c);
// Seconds since the row's updatedAt as of `nowSecs` (-1: unknown).
qint64 ageSecondsOf(const CandidateRow &row, std::optional<qint64> nowSecs);
// Orders two rows by what `column` shows (<0, 0, >0).
int compareCandidateRows(const CandidateRow &a, const CandidateRow &b, int column,
                         std::optional<qint64> nowSecs);
// Whether `a` comes before `b` in `order`: ties in the column go to the oldest, then the key.
bool candidateRowBefore(const CandidateRow &a, const CandidateRow &b, CandidateOrder order,
                        std::optional<qint64> nowSecs);
// Puts `rows` in `order` and rebuilds their index.
void sortCandidateRows(CandidateRows &rows, CandidateOrder order);

} // namespace reclaim::ui
