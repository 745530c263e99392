#include "runchart.h"

#include "plannedactions.h"
#include "releaseoffuithread.h"
#include "verdictstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLineSeries>
#include <QResizeEvent>
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
    legend->setFont(small);
    auto swatch = [](const QColor &c, const QString &text) {
        return QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2").arg(c.name(), text);
    };
    // Two short lines, never wrapped: a wrapped label in a splitter can be squeezed over.
    legend->setWordWrap(false);
    legend->setText(QStringLiteral("Bars: %1 %2 %3<br>Lines: %4 %5 %6 &nbsp;\u2715 not run")
                        .arg(swatch(verdictColor(Verdict::Unknown), QStringLiteral("? unknown")),
                             swatch(verdictColor(Verdict::Absent), QStringLiteral("! absent")),
                             swatch(verdictColor(Verdict::Scheduled).lighter(150),
                                    QStringLiteral("\u2713 scheduled")),
                             QStringLiteral("- - planned"),
                             swatch(actionResultColor(ActionResult::Applied).darker(130),
                                    QStringLiteral("applied")),
                             QStringLiteral("&middot;&middot;&middot; refused")));
    legend->setToolTip(QStringLiteral("Refused: stale, fenced, dropped, lock lost, enqueue failed "
                                      "or error; nothing was written for them.\n\u2715 after a "
                                      "time: that run was skipped or failed and saw nothing."));
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
    addRun(report, planActions(report));
}

void RunChart::addRun(const RunReport &report, const PlannedActions &plan)
{
    Point p;
    // Short labels, or Qt elides them in a narrow chart: the minute, and a cross for a run that
    // did not complete (its bars are empty: it saw nothing).
    p.label = report.startedAt.toLocalTime().toString(QStringLiteral("HH:mm"));
    if (report.outcome != RunReport::Outcome::Completed)
        p.label += QStringLiteral("\u2715");
    const VerdictCounts n = report.counts();
    p.unknown = n.unknown;
    p.absent = n.absent;
    p.scheduled = n.scheduled;
    p.planned = static_cast<int>(report.actions.size());
    p.actionIds = plan.index;
    p.applied = plan.countOf(ActionResult::Applied);
    for (int r = 0; r <= static_cast<int>(ActionResult::Error); ++r)
        p.refused += refused(ActionResult(r)) ? plan.countOf(ActionResult(r)) : 0;
    m_points << p;
    while (m_points.size() > kMaxRuns)
        releaseOffUiThread(m_points.takeFirst()); // its action ids may be 200,000 strings
    m_cap = kMaxRuns;                             // new labels: guess again, and check
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

void RunChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (event->size().width() > event->oldSize().width())
        m_cap = kMaxRuns; // more room: try again from the guess
    if (fittingCount({}) != m_shown)
        rebuild();
    scheduleCheck();
}

void RunChart::scheduleCheck()
{
    if (m_checkPending)
        return;
    m_checkPending = true;
    // Queued behind the chart's own layout request, so the labels are laid out when it runs.
    QMetaObject::invokeMethod(this, &RunChart::dropElidedRuns, Qt::QueuedConnection);
}

QStringList RunChart::shownLabels() const
{
    return m_points.isEmpty() ? QStringList{} : m_x->categories();
}

// A first guess at how many of the latest runs have room for their labels: Qt elides a
// category label wider than its share of the axis ("07:..."). The guess is checked against what
// Qt drew once the chart is laid out (dropElidedRuns).
int RunChart::fittingCount(const QStringList &labels) const
{
    QStringList all = labels;
    if (all.isEmpty())
        for (const Point &p : m_points)
            all << p.label;
    if (all.isEmpty())
        return 0;
    const QFontMetrics fm(m_x->labelsFont());
    int widest = 0;
    for (const QString &l : std::as_const(all))
        widest = std::max(widest, fm.horizontalAdvance(l));
    // The plot area once the chart is laid out; before that, the view less the value axis.
    const qreal laidOut = m_view->chart()->plotArea().width();
    const int estimate = m_view->width() - fm.horizontalAdvance(QStringLiteral("0000")) - 24;
    const int plot = laidOut > 0 ? static_cast<int>(laidOut) : std::max(0, estimate);
    const int share = widest + fm.horizontalAdvance(QStringLiteral("m"));
    return std::clamp(plot / share - 1, 1, std::min(static_cast<int>(all.size()), m_cap));
}

// Qt decides at layout time which labels it elides, by rules of its own: look at what it drew
// and show one run fewer while any time label is cut.
void RunChart::dropElidedRuns()
{
    m_checkPending = false;
    if (!m_view->scene() || m_shown <= 1)
        return;
    for (const QGraphicsItem *item : m_view->scene()->items()) {
        const auto *text = dynamic_cast<const QGraphicsTextItem *>(item);
        if (!text || !text->isVisible())
            continue;
        const QString shown = text->toPlainText();
        if (shown.endsWith(QStringLiteral("...")) || shown.endsWith(QChar(0x2026))) {
            m_cap = m_shown - 1;
            rebuild();
            return;
        }
    }
}

void RunChart::rebuild()
{
    QStringList allLabels;
    for (const Point &p : std::as_const(m_points)) {
        QString label = p.label;
        // Categories must be unique: two runs in the same minute look alike but stay distinct.
        while (allLabels.contains(label))
            label += QChar(0x200B); // zero width space
        allLabels << label;
    }
    m_shown = fittingCount(allLabels);
    const qsizetype first = m_points.size() - m_shown;
    QStringList labels;
    QList<qreal> unknown, absent, scheduled;
    QList<QPointF> planned, applied, refusedPoints;
    int top = 1;
    for (qsizetype i = first; i < m_points.size(); ++i) {
        const Point &p = m_points.at(i);
        const qreal x = static_cast<qreal>(i - first);
        labels << allLabels.at(i);
        unknown << p.unknown;
        absent << p.absent;
        scheduled << p.scheduled;
        planned << QPointF(x, p.planned);
        applied << QPointF(x, p.applied);
        refusedPoints << QPointF(x, p.refused);
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
    scheduleCheck();
}

} // namespace reclaim::ui
