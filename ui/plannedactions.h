// A run's planned actions as the console's tables hold them: each copied once, off the UI thread,
// into one immutable object that the candidate table (a row's planned action), the actions table
// and the run chart share. At a lost Redis's 200,000 actions, copying each Action again on the UI
// thread for every table took over a second there.
#pragma once

#include "domain/action.h"

#include <QHash>
#include <QList>
#include <memory>

namespace reclaim {
struct RunReport;
}

namespace reclaim::ui {

struct PlannedActions
{
    QList<std::shared_ptr<const Action>> list; // in the report's order
    QHash<QString, int> index;                 // Action::id -> its position in `list`
};

PlannedActions planActions(const RunReport &report);

} // namespace reclaim::ui
