#include "layoutchecks.h"

#include "elidedlabel.h"

#include <QAbstractItemView>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTextDocument>

namespace reclaim::test {

namespace {

QString where(const QWidget *w)
{
    QStringList path;
    for (const QObject *o = w; o; o = o->parent()) {
        const QString name = o->objectName();
        path.prepend(name.isEmpty() ? QString::fromLatin1(o->metaObject()->className()) : name);
        if (path.size() == 3)
            break;
    }
    return path.join(QLatin1Char('/'));
}

bool shown(const QWidget *w)
{
    return w->isVisible() && w->width() > 0 && w->height() > 0;
}

} // namespace

QStringList columnsNotInView(const QTableView *view, const QList<int> &columns)
{
    QStringList problems;
    const QHeaderView *header = view->horizontalHeader();
    const int room = view->viewport()->width();
    for (const int c : columns) {
        const QString name = view->model()->headerData(c, Qt::Horizontal).toString();
        if (view->isColumnHidden(c)) {
            problems << QStringLiteral("column %1 is hidden").arg(name);
            continue;
        }
        const int left = header->sectionViewportPosition(c);
        const int right = left + header->sectionSize(c);
        if (left < 0 || right > room)
            problems << QStringLiteral("column %1 spans %2..%3, outside the viewport 0..%4")
                            .arg(name)
                            .arg(left)
                            .arg(right)
                            .arg(room);
        // What every cell of the column needs (not only those on screen: a rare long text far
        // down the list must fit too), measured as the view measures, and the header's title.
        QHeaderView *rows = view->verticalHeader();
        const int precision = rows->resizeContentsPrecision();
        rows->setResizeContentsPrecision(-1); // every row
        const int wanted =
            std::max(static_cast<const QAbstractItemView *>(view)->sizeHintForColumn(c),
                     header->sectionSizeHint(c));
        rows->setResizeContentsPrecision(precision);
        if (header->sectionSize(c) < wanted)
            problems << QStringLiteral("column %1 is %2 px wide, its text needs %3")
                            .arg(name)
                            .arg(header->sectionSize(c))
                            .arg(wanted);
    }
    return problems;
}

QStringList clippedLabels(const QWidget *root)
{
    QStringList problems;
    for (const QLabel *label : root->findChildren<QLabel *>()) {
        if (!shown(label) || qobject_cast<const ui::ElidedLabel *>(label) ||
            label->text().isEmpty() || !label->pixmap().isNull())
            continue;
        const QRect room = label->contentsRect().adjusted(label->margin(), label->margin(),
                                                          -label->margin(), -label->margin());
        if (label->wordWrap()) {
            const int needed = label->heightForWidth(label->width());
            if (needed > label->height() + 1)
                problems << QStringLiteral("%1 '%2': %3 px tall, its wrapped text needs %4")
                                .arg(where(label), label->text().left(60))
                                .arg(label->height())
                                .arg(needed);
            continue;
        }
        qreal needed = 0;
        const bool rich =
            label->textFormat() == Qt::RichText ||
            (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
        if (rich) {
            QTextDocument doc;
            doc.setDefaultFont(label->font());
            doc.setDocumentMargin(0);
            doc.setHtml(label->text());
            needed = doc.idealWidth();
        } else {
            // A label with a buddy draws "&Job:" as "Job:" with the J underlined.
            QString text = label->text();
            if (label->buddy()) {
                text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
                text.remove(QLatin1Char('&'));
                text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
            }
            for (const QString &line : text.split(QLatin1Char('\n')))
                needed = std::max<qreal>(needed, label->fontMetrics().horizontalAdvance(line));
        }
        if (needed > room.width() + 1)
            problems << QStringLiteral("%1 '%2': %3 px wide, its text needs %4")
                            .arg(where(label), label->text().left(60))
                            .arg(room.width())
                            .arg(qRound(needed));
    }
    return problems;
}

QStringList elidedLabels(const QWidget *root)
{
    QStringList out;
    for (const ui::ElidedLabel *label : root->findChildren<ui::ElidedLabel *>())
        if (shown(label) && label->isElided())
            out << QStringLiteral("%1 '%2'").arg(where(label), label->fullText());
    return out;
}

QStringList elidedChartLabels(const QWidget *root)
{
    QStringList out;
    for (const QChartView *chart : root->findChildren<QChartView *>()) {
        if (!shown(chart) || !chart->scene())
            continue;
        for (const QGraphicsItem *item : chart->scene()->items()) {
            if (!item->isVisible())
                continue;
            QString text;
            if (const auto *t = dynamic_cast<const QGraphicsTextItem *>(item))
                text = t->toPlainText();
            else if (const auto *t = dynamic_cast<const QGraphicsSimpleTextItem *>(item))
                text = t->text();
            if (text.endsWith(QStringLiteral("...")) || text.contains(QChar(0x2026)))
                out << text;
        }
    }
    return out;
}

} // namespace reclaim::test
