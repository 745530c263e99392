#include "runchart.h"

#include "verdictstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace reclaim::ui {

namespace {

bool refused(ActionResult r)
{
    return r != ActionResult::Pending && r != ActionResult::Applied;
}

} // namespace

RunChart::RunChart(QWidget *parent)
    : QWidget(parent), m_view(new QChartView(this)),
      m_unknown(new QBarSet(QStringLiteral("? unknown"))),
      m_absent(new QBarSet(QStringLiteral("! absent"))),
      m_scheduled(new QBarSet(QStringLiteral("\u2713 scheduled"))), m_planned(new QLineSeries),
      m_applied(new QLineSeries), m_refused(new QLineSeries), m_x(new QBarCategoryAxis),
      m_y(new QValueAxis)
{
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    // Qt's legend truncates six entries in a narrow column; a label below says it in full.
    chart->legend()->hide();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    m_unknown->setColor(verdictColor(Verdict::Unknown));
    m_absent->setColor(verdictColor(Verdict::Absent));
    m_scheduled->setColor(verdictColor(Verdict::Scheduled).lighter(150));
    auto *bars = new QStackedBarSeries;
    bars->append({m_unknown, m_absent, m_scheduled});
    chart->addSeries(bars);
    m_planned->setName(QStringLiteral("actions planned"));
    m_applied->setName(QStringLiteral("applied"));
    m_refused->setName(QStringLiteral("refused"));
    m_planned->setPen(QPen(QColor(0x45, 0x5a, 0x64), 2, Qt::DashLine));
    m_applied->setPen(QPen(actionResultColor(ActionResult::Applied).darker(130), 2));
    m_refused->setPen(QPen(QColor(0x6a, 0x1b, 0x9a), 2, Qt::DotLine));
    for (QLineSeries *s : {m_planned, m_applied, m_refused}) {
        s->setPointsVisible(true);
        chart->addSeries(s);
    }
    m_x->setLabelsFont(small);
    m_y->setLabelsFont(small);
    m_y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries *s : chart->series()) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    m_view->setChart(chart);
    m_view->setRenderHint(QPainter::Antialiasing);
    auto *legend = new QLabel(this);
    legend->setWordWrap(true);
    legend->setFont(small);
    auto swatch = [](const QColor &c, const QString &text) {
        return QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2").arg(c.name(), text);
    };
    legend->setText(
        QStringLiteral("Bars: %1 %2 %3<br>Lines: %4 %5 %6")
            .arg(
                swatch(verdictColor(Verdict::Unknown), QStringLiteral("? unknown")),
                swatch(verdictColor(Verdict::Absent), QStringLiteral("! absent")),
                swatch(verdictColor(Verdict::Scheduled).lighter(150),
                       QStringLiteral("\u2713 scheduled")),
                QStringLiteral("- - planned"),
                swatch(actionResultColor(ActionResult::Applied).darker(130),
                       QStringLiteral("applied")),
                QStringLiteral("&middot;&middot;&middot; refused (stale, fenced, dropped\u2026)")));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_view, 1);
    layout->addWidget(legend);
    setToolTip(
        QStringLiteral("Recent runs: candidates by verdict (bars) and what became of the planned "
                       "actions (lines)"));
    rebuild();
}

void RunChart::addRun(const RunReport &report)
{
    Point p;
    // Category labels must be unique: a run in the same minute as the last one shows seconds.
    const QDateTime at = report.startedAt.toLocalTime();
    p.label = at.toString(QStringLiteral("HH:mm"));
    if (!m_points.isEmpty() && m_points.last().label.startsWith(p.label))
        p.label = at.toString(QStringLiteral("HH:mm:ss"));
    if (report.outcome != RunReport::Outcome::Completed)
        p.label += QStringLiteral(" \u2715");
    p.unknown = report.count(Verdict::Unknown);
    p.absent = report.count(Verdict::Absent);
    p.scheduled = report.count(Verdict::Scheduled);
    p.planned = static_cast<int>(report.actions.size());
    for (const Action &a : report.actions) {
        p.actionIds.insert(a.id);
        p.applied += a.result == ActionResult::Applied ? 1 : 0;
        p.refused += refused(a.result) ? 1 : 0;
    }
    m_points << p;
    while (m_points.size() > kMaxRuns)
        m_points.removeFirst();
    rebuild();
}

void RunChart::recordAction(const Action &action)
{
    for (qsizetype i = m_points.size() - 1; i >= 0; --i) {
        if (!m_points.at(i).actionIds.contains(action.id))
            continue;
        m_points[i].applied += action.result == ActionResult::Applied ? 1 : 0;
        m_points[i].refused += refused(action.result) ? 1 : 0;
        rebuild();
        return;
    }
}

void RunChart::rebuild()
{
    QStringList labels;
    QList<qreal> unknown, absent, scheduled;
    QList<QPointF> planned, applied, refusedPoints;
    int top = 1;
    for (qsizetype i = 0; i < m_points.size(); ++i) {
        const Point &p = m_points.at(i);
        QString label = p.label;
        while (labels.contains(label)) // two runs in the same second: still distinct
            label += QLatin1Char('*');
        labels << label;
        unknown << p.unknown;
        absent << p.absent;
        scheduled << p.scheduled;
        planned << QPointF(i, p.planned);
        applied << QPointF(i, p.applied);
        refusedPoints << QPointF(i, p.refused);
        top = std::max({top, p.unknown + p.absent + p.scheduled, p.planned});
    }
    m_unknown->remove(0, m_unknown->count());
    m_absent->remove(0, m_absent->count());
    m_scheduled->remove(0, m_scheduled->count());
    m_unknown->append(unknown);
    m_absent->append(absent);
    m_scheduled->append(scheduled);
    m_planned->replace(planned);
    m_applied->replace(applied);
    m_refused->replace(refusedPoints);
    m_x->setCategories(labels.isEmpty() ? QStringList{QStringLiteral("no runs yet")} : labels);
    // Whole-number ticks at a round step (1, 2, 5, 10, 20, ...), about four of them.
    int step = 1;
    for (int base = 1; step * 4 < top; base *= 10)
        for (const int m : {1, 2, 5})
            if (step * 4 < top)
                step = m * base;
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_y->setTickInterval(step);
    m_y->setRange(0, ((top + step - 1) / step) * step);
}

} // namespace reclaim::ui
