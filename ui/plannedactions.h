// A run's planned actions as the console's tables hold them: each copied once, off the UI thread,
// into one immutable object that the candidate table (a row's planned action), the actions table
// and the run chart share. At a lost Redis's 200,000 actions, copying each Action again on the UI
// thread for every table took over a second there.
#pragma once

#include "domain/action.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <array>
#include <memory>

namespace reclaim {
struct RunReport;
}

namespace reclaim::ui {

// The actions table's columns (ActionsModel::Column).
namespace ActionsTable {
enum Column
{
    ResultColumn,
    KindColumn,
    JobColumn,
    PreconditionColumn,
    TimeColumn,
    DetailColumn,
    ColumnCount
};
} // namespace ActionsTable

// One row of the actions table.
struct ActionEntry
{
    std::shared_ptr<const Action> action; // never null; replaced, never written through
    QDateTime plannedAt;
    bool approving = false; // its approval is in flight on the worker
    bool recording = false; // a rejection (or its undo) is on its way to the database
};

// Per column, rows whose cells between them take every shape that column's text can have (one
// per distinct result, action kind, status; the longest job ids; the time's one format), so a
// view can find the column's width without measuring every row. Found in one pass.
using ActionWidthSamples = std::array<QList<int>, ActionsTable::ColumnCount>;
ActionWidthSamples widthSamplesOf(const QList<ActionEntry> &entries);

struct PlannedActions
{
    QList<ActionEntry> entries; // in the report's order, planned at the report's finishedAt
    QHash<QString, int> index;  // Action::id -> its position in `entries`
    ActionWidthSamples widthSamples;
    std::array<int, 16> resultCounts{}; // how many have each ActionResult, by its value

    int countOf(ActionResult r) const { return resultCounts[static_cast<size_t>(r)]; }
};

PlannedActions planActions(const RunReport &report);

} // namespace reclaim::ui
