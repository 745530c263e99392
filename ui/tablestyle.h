// The one look every console table shares: whole-row single selection, alternating rows, and
// fixed row heights so a view never measures thousands of rows.
#pragma once

class QTableView;

namespace reclaim::ui {

void configureTable(QTableView *view);

} // namespace reclaim::ui
