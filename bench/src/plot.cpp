#include "plot.h"

#include <QChart>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

namespace reclaim::bench {

namespace {

const QList<QColor> kColors{QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                            QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd)};

struct Point
{
    double x;
    double total;
    double lookup;
};

// One chart: for each family, its points measured for this axis ("candidates" or "jobs"; the
// other dimension at its base value) and those marked "both".
QChart *chartFor(const QJsonArray &families, const QString &xKey, const QString &title,
                 const QString &xTitle)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto *x = new QLogValueAxis;
    x->setBase(2);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(xTitle);
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("run wall time (s), median"));
    y->setLabelFormat(QStringLiteral("%.2f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double xMin = 1e18, xMax = 0, yMax = 0;
    for (qsizetype f = 0; f < families.size(); ++f) {
        const QJsonObject family = families.at(f).toObject();
        QList<Point> points;
        for (const QJsonValue &v : family.value(QStringLiteral("points")).toArray()) {
            const QJsonObject p = v.toObject();
            const QString axis = p.value(QStringLiteral("axis")).toString();
            if (axis != xKey && axis != QLatin1String("both"))
                continue;
            points << Point{p.value(xKey).toDouble(),
                            p.value(QStringLiteral("runSeconds")).toDouble(),
                            p.value(QStringLiteral("lookupSeconds")).toDouble()};
        }
        std::sort(points.begin(), points.end(),
                  [](const Point &a, const Point &b) { return a.x < b.x; });
        if (points.isEmpty())
            continue;
        const QColor color = kColors.at(f % kColors.size());
        auto *total = new QLineSeries;
        const QString label = family.value(QStringLiteral("label")).toString();
        total->setName(label + QStringLiteral(": whole run"));
        total->setPen(QPen(color, 2.5));
        total->setPointsVisible(true);
        auto *lookup = new QLineSeries;
        lookup->setName(label + QStringLiteral(": lookup phase"));
        lookup->setPen(QPen(color, 1.5, Qt::DashLine));
        lookup->setPointsVisible(true);
        for (const Point &p : points) {
            total->append(p.x, p.total);
            lookup->append(p.x, p.lookup);
            xMin = qMin(xMin, p.x);
            xMax = qMax(xMax, p.x);
            yMax = qMax(yMax, p.total);
        }
        for (QLineSeries *s : {total, lookup}) {
            chart->addSeries(s);
            s->attachAxis(x);
            s->attachAxis(y);
        }
    }
    if (xMax > 0) {
        x->setRange(xMin / 1.3, xMax * 1.3);
        y->setRange(0, yMax * 1.15 + 0.01);
    }
    return chart;
}

} // namespace

int runPlot(const Args &args)
{
    QFile in(args.value(QStringLiteral("in")));
    if (!in.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1").arg(in.fileName()));
    const QJsonObject growth =
        QJsonDocument::fromJson(in.readAll()).object().value(QStringLiteral("growth")).toObject();
    const QJsonArray families = growth.value(QStringLiteral("families")).toArray();
    const double baseCandidates = growth.value(QStringLiteral("baseCandidates")).toDouble();
    const double baseJobs = growth.value(QStringLiteral("baseJobs")).toDouble();

    const QSize size(1600, 700);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    const QList<QChart *> charts{
        chartFor(families, QStringLiteral("candidates"),
                 QStringLiteral("Run time against candidates (queue size %1 jobs)")
                     .arg(baseJobs, 0, 'f', 0),
                 QStringLiteral("candidates")),
        chartFor(families, QStringLiteral("jobs"),
                 QStringLiteral("Run time against queue size (%1 candidates)")
                     .arg(baseCandidates, 0, 'f', 0),
                 QStringLiteral("BullMQ jobs in Redis"))};
    QGraphicsScene scene;
    for (qsizetype i = 0; i < charts.size(); ++i) {
        QChart *chart = charts.at(i);
        scene.addItem(chart);
        chart->setGeometry(QRectF(0, 0, size.width() / 2.0, size.height()));
        scene.setSceneRect(chart->geometry());
        scene.render(&painter, QRectF(i * size.width() / 2.0, 0, size.width() / 2.0, size.height()),
                     chart->geometry());
        scene.removeItem(chart);
        delete chart;
    }
    painter.end();
    if (!image.save(args.value(QStringLiteral("out")), "PNG"))
        return fail(QStringLiteral("cannot write %1").arg(args.value(QStringLiteral("out"))));
    return 0;
}

} // namespace reclaim::bench
