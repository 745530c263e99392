#include "plannedactions.h"

#include "domain/runreport.h"

namespace reclaim::ui {

PlannedActions planActions(const RunReport &report)
{
    PlannedActions out;
    out.list.reserve(report.actions.size());
    out.index.reserve(report.actions.size());
    for (const Action &a : report.actions) {
        out.index.insert(a.id, static_cast<int>(out.list.size()));
        out.list.append(std::make_shared<const Action>(a));
    }
    return out;
}

} // namespace reclaim::ui
