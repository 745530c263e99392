#include "sampledtableview.h"

#include <QAbstractItemDelegate>
#include <QStyleOptionViewItem>
#include <algorithm>

namespace reclaim::ui {

int SampledTableView::widthHintForRows(int column, const QList<int> &rows) const
{
    if (!model())
        return 0;
    ensurePolished();
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    int hint = 0;
    for (const int row : rows) {
        if (row < 0 || row >= model()->rowCount())
            continue;
        const QModelIndex index = model()->index(row, column);
        // The cell as it is laid out now: a zero height would read as "no wrapping room".
        option.rect = QRect(columnViewportPosition(column), rowViewportPosition(row),
                            columnWidth(column), std::max(1, rowHeight(row)));
        hint = std::max(hint, itemDelegateForIndex(index)->sizeHint(option, index).width());
    }
    return hint > 0 && showGrid() ? hint + 1 : hint;
}

} // namespace reclaim::ui
