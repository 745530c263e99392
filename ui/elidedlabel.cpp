#include "elidedlabel.h"

#include <QEvent>
#include <QResizeEvent>

namespace reclaim::ui {

ElidedLabel::ElidedLabel(QWidget *parent, Qt::TextElideMode mode) : QLabel(parent), m_mode(mode)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
    // Shrinks below its text (eliding it); grows to show all of it.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString &text)
{
    if (text == m_full)
        return;
    m_full = text;
    updateGeometry();
    refit();
}

void ElidedLabel::setExtraToolTip(const QString &tip)
{
    m_extraTip = tip;
    refit();
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(m_full) + m.left() + m.right() + 2 * margin(),
            QLabel::sizeHint().height()};
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a few characters and the ellipsis: enough to see that something is there.
    const int few = fontMetrics().horizontalAdvance(m_full.left(4) + QChar(0x2026));
    return {std::min(few, sizeHint().width()), QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    refit();
}

void ElidedLabel::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        refit();
}

void ElidedLabel::refit()
{
    const int width = contentsRect().width() - 2 * margin();
    const QString shown = fontMetrics().elidedText(m_full, m_mode, std::max(0, width));
    m_elided = shown != m_full;
    QLabel::setText(shown);
    QStringList tips;
    if (m_elided)
        tips << m_full;
    if (!m_extraTip.isEmpty())
        tips << m_extraTip;
    setToolTip(tips.join(QLatin1Char('\n')));
}

} // namespace reclaim::ui
