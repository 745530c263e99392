// A table view that can say how wide a column's cells are for chosen rows only, measured the
// way QTableView::sizeHintForColumn measures the rows it reads (same style option, same cell
// rectangle, the grid line): a caller that knows which rows differ need not read thousands.
#pragma once

#include <QList>
#include <QTableView>

namespace reclaim::ui {

class SampledTableView final : public QTableView
{
    Q_OBJECT
public:
    using QTableView::QTableView;

    // The widest of `rows`' cells in `column` (rows out of range are skipped); 0 for none.
    int widthHintForRows(int column, const QList<int> &rows) const;
};

} // namespace reclaim::ui
