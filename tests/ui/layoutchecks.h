// Checks on a laid-out console window that what must be readable is: table columns inside their
// view at full width, labels whose text fits, chart labels that are not cut. Each returns what is
// wrong, one line per problem, so a failing test says where.
#pragma once

#include <QList>
#include <QStringList>

class QTableView;
class QWidget;

namespace reclaim::test {

// Columns of `view` whose section does not lie inside the viewport, or is narrower than any of
// its cells (on screen or not) or its header asks for (their text would be elided).
QStringList columnsNotInView(const QTableView *view, const QList<int> &columns);
// Visible QLabels under `root` whose text does not fit: a one-line label wider than its room, a
// wrapping label taller than its height. ElidedLabels elide by design and are left out.
QStringList clippedLabels(const QWidget *root);
// Visible ElidedLabels under `root` that are showing an elided text, with their full text.
QStringList elidedLabels(const QWidget *root);
// Text items drawn by the charts under `root` that Qt cut short ("07:..." or "07:\u2026").
QStringList elidedChartLabels(const QWidget *root);

} // namespace reclaim::test
