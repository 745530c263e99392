// A small chart of the recent runs: candidates by verdict as stacked bars, and how many of each
// run's planned actions were applied or came back refused (stale, fenced, dropped, ...). It shows
// as many of the latest runs as their time labels fit under, so no label is ever cut.
#pragma once

#include "domain/runreport.h"
#include "plannedactions.h"

#include <QHash>
#include <QWidget>

class QBarCategoryAxis;
class QChartView;
class QLabel;
class QBarSet;
class QLineSeries;
class QValueAxis;

namespace reclaim::ui {

class RunChart final : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMaxRuns = 12;

    explicit RunChart(QWidget *parent = nullptr);

    void addRun(const RunReport &report);
    // The same with the run's actions already indexed and counted (off the UI thread).
    void addRun(const RunReport &report, const PlannedActions &plan);
    // An approved (or rejected) action's result, counted against the run that planned it.
    void recordAction(const Action &action);
    int runCount() const { return static_cast<int>(m_points.size()); }
    // How many of the latest runs fit at the current width, and their labels as shown.
    int shownCount() const { return m_shown; }
    QStringList shownLabels() const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Point
    {
        QString label;
        int unknown = 0;
        int absent = 0;
        int scheduled = 0;
        int planned = 0;
        int applied = 0;
        int refused = 0;
        // Action::id -> position, shared with the tables (PlannedActions): never copied per run.
        QHash<QString, int> actionIds;
    };
    void rebuild();
    int fittingCount(const QStringList &labels) const;
    void scheduleCheck();
    void dropElidedRuns();

    QList<Point> m_points;
    QChartView *m_view;
    QBarSet *m_unknown;
    QBarSet *m_absent;
    QBarSet *m_scheduled;
    QLineSeries *m_planned;
    QLineSeries *m_applied;
    QLineSeries *m_refused;
    QBarCategoryAxis *m_x;
    QValueAxis *m_y;
    int m_shown = 0;
    int m_cap = kMaxRuns; // at most this many: more were drawn with an elided label
    bool m_checkPending = false;
};

} // namespace reclaim::ui
