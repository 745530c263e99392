#include "verdictstyle.h"

#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace reclaim::ui {

namespace {

enum class Shape
{
    Circle,
    Diamond,
    Square,
    Ring
};

// Icons are drawn, not loaded: no resource files, and the shape carries meaning on its own.
QIcon drawIcon(Shape shape, const QColor &color, const QString &glyph)
{
    QIcon icon;
    for (const int size : {16, 32}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const QRectF r(1, 1, size - 2, size - 2);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        switch (shape) {
        case Shape::Circle:
            p.drawEllipse(r);
            break;
        case Shape::Square:
            p.drawRoundedRect(r, size / 8.0, size / 8.0);
            break;
        case Shape::Diamond: {
            QPainterPath path;
            path.moveTo(r.center().x(), r.top());
            path.lineTo(r.right(), r.center().y());
            path.lineTo(r.center().x(), r.bottom());
            path.lineTo(r.left(), r.center().y());
            path.closeSubpath();
            p.drawPath(path);
            break;
        }
        case Shape::Ring:
            p.setPen(QPen(color, size / 8.0));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(r.adjusted(size / 16.0, size / 16.0, -size / 16.0, -size / 16.0));
            break;
        }
        if (!glyph.isEmpty()) {
            QFont f = p.font();
            f.setBold(true);
            f.setPixelSize(size * 11 / 16);
            p.setFont(f);
            p.setPen(shape == Shape::Ring ? color : QColor(Qt::white));
            p.drawText(r, Qt::AlignCenter, glyph);
        }
        p.end();
        icon.addPixmap(pm);
    }
    return icon;
}

template <typename Key>
QIcon cachedIcon(Key key, Shape shape, const QColor &color, const QString &glyph)
{
    static QHash<int, QIcon> cache;
    const int k = static_cast<int>(key);
    auto it = cache.find(k);
    if (it == cache.end())
        it = cache.insert(k, drawIcon(shape, color, glyph));
    return *it;
}

} // namespace

int verdictSeverity(Verdict v)
{
    switch (v) {
    case Verdict::Unknown:
        return 0;
    case Verdict::Absent:
        return 1;
    case Verdict::Scheduled:
        return 2;
    }
    return 3;
}

QString verdictGlyph(Verdict v)
{
    switch (v) {
    case Verdict::Unknown:
        return QStringLiteral("?");
    case Verdict::Absent:
        return QStringLiteral("!");
    case Verdict::Scheduled:
        return QStringLiteral("\u2713");
    }
    return {};
}

QColor verdictColor(Verdict v)
{
    switch (v) {
    case Verdict::Unknown:
        return QColor(0xa8, 0x56, 0x00);
    case Verdict::Absent:
        return QColor(0xb7, 0x1c, 0x1c);
    case Verdict::Scheduled:
        return QColor(0x2e, 0x7d, 0x32);
    }
    return Qt::black;
}

QIcon verdictIcon(Verdict v)
{
    const Shape shape = v == Verdict::Unknown  ? Shape::Diamond
                        : v == Verdict::Absent ? Shape::Square
                                               : Shape::Circle;
    return cachedIcon(v, shape, verdictColor(v), verdictGlyph(v));
}

QString verdictMeaning(Verdict v)
{
    switch (v) {
    case Verdict::Unknown:
        return QStringLiteral(
            "UNKNOWN: Reclaim could not look (Redis error, timeout or unfinished scan). "
            "Nothing will be done; it looks again next run.");
    case Verdict::Absent:
        return QStringLiteral("ABSENT: every lookup succeeded and none found the job runnable. "
                              "An action is planned.");
    case Verdict::Scheduled:
        return QStringLiteral("SCHEDULED: the job is in a runnable BullMQ state. Nothing to do.");
    }
    return {};
}

QString actionResultText(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return QStringLiteral("awaiting approval");
    case ActionResult::Applied:
        return QStringLiteral("applied");
    case ActionResult::Stale:
        return QStringLiteral("stale (0 rows)");
    case ActionResult::Fenced:
        return QStringLiteral("fenced");
    case ActionResult::EnqueueFailed:
        return QStringLiteral("enqueue failed");
    case ActionResult::Dropped:
        return QStringLiteral("dropped");
    case ActionResult::Rejected:
        return QStringLiteral("rejected");
    case ActionResult::LockLost:
        return QStringLiteral("lock lost");
    case ActionResult::Unknown:
        return QStringLiteral("unknown");
    case ActionResult::Error:
        return QStringLiteral("error");
    }
    return {};
}

QString actionResultShortText(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return QStringLiteral("awaiting");
    case ActionResult::Stale:
        return QStringLiteral("stale");
    default:
        return actionResultText(r);
    }
}

QColor actionResultColor(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return QColor(0x45, 0x5a, 0x64);
    case ActionResult::Applied:
        return QColor(0x2e, 0x7d, 0x32);
    case ActionResult::Stale:
    case ActionResult::Dropped:
        return QColor(0x61, 0x61, 0x61);
    case ActionResult::Rejected:
        return QColor(0x6a, 0x1b, 0x9a);
    case ActionResult::Fenced:
    case ActionResult::EnqueueFailed:
    case ActionResult::LockLost:
    case ActionResult::Unknown:
    case ActionResult::Error:
        return QColor(0xb7, 0x1c, 0x1c);
    }
    return Qt::black;
}

QIcon actionResultIcon(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return cachedIcon(r, Shape::Ring, actionResultColor(r), {});
    case ActionResult::Applied:
        return cachedIcon(r, Shape::Circle, actionResultColor(r), QStringLiteral("\u2713"));
    case ActionResult::Stale:
    case ActionResult::Dropped:
        return cachedIcon(r, Shape::Diamond, actionResultColor(r), QStringLiteral("-"));
    case ActionResult::Rejected:
        return cachedIcon(r, Shape::Square, actionResultColor(r), QStringLiteral("\u00d7"));
    case ActionResult::Fenced:
    case ActionResult::EnqueueFailed:
    case ActionResult::LockLost:
    case ActionResult::Error:
        return cachedIcon(r, Shape::Square, actionResultColor(r), QStringLiteral("!"));
    case ActionResult::Unknown:
        return cachedIcon(r, Shape::Square, actionResultColor(r), QStringLiteral("?"));
    }
    return {};
}

QString actionResultMeaning(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return QStringLiteral("Planned, not run: approve or reject it.");
    case ActionResult::Applied:
        return QStringLiteral("The conditional write changed the row.");
    case ActionResult::Stale:
        return QStringLiteral(
            "0 rows: the row moved on after it was read (a worker saved progress). "
            "Nothing else was done, parent untouched.");
    case ActionResult::Fenced:
        return QStringLiteral("A newer run has started; this one may no longer write.");
    case ActionResult::EnqueueFailed:
        return QStringLiteral("The enqueue did not leave a runnable job; the row is untouched.");
    case ActionResult::Dropped:
        return QStringLiteral("Not run: re-checked and no longer ABSENT, or the lock was busy.");
    case ActionResult::Rejected:
        return QStringLiteral(
            "Not run: an operator rejected it (recorded in reclaim.audit). It is not offered again "
            "while the row keeps this status and updatedAt; undo the rejection (Ctrl+Z) to offer "
            "it again.");
    case ActionResult::LockLost:
        return QStringLiteral("The lock expired or changed hands; no write issued.");
    case ActionResult::Unknown:
        return QStringLiteral(
            "Sent, never answered: the job may or may not be back in its queue. The row was left "
            "as it was; the next run looks the job up again.");
    case ActionResult::Error:
        return QStringLiteral("The database write failed; nothing committed.");
    }
    return {};
}

QString actionOutcomeText(const Action &a)
{
    if (a.result == ActionResult::Rejected && !a.rejectedBy.isEmpty())
        return QStringLiteral("rejected by %1").arg(a.rejectedBy);
    return actionResultText(a.result);
}

QIcon runningIcon()
{
    static const QIcon icon =
        drawIcon(Shape::Circle, QColor(0x15, 0x65, 0xc0), QStringLiteral("\u2026"));
    return icon;
}

QIcon heldIcon()
{
    static const QIcon icon = drawIcon(Shape::Ring, staleColor(), QStringLiteral("\u2016"));
    return icon;
}

QColor staleColor()
{
    return QColor(0x75, 0x75, 0x75);
}

} // namespace reclaim::ui
