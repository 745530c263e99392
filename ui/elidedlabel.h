// A one-line label for text that may be cut where space is short: it elides the text to the
// width it gets and then offers the whole text as its tooltip, instead of clipping it silently.
#pragma once

#include <QLabel>

namespace reclaim::ui {

class ElidedLabel final : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr, Qt::TextElideMode mode = Qt::ElideRight);

    // The whole text (plain); what is shown is this, elided to the label's width.
    void setFullText(const QString &text);
    QString fullText() const { return m_full; }
    // A tooltip shown even when nothing is elided (the full text is added when it is).
    void setExtraToolTip(const QString &tip);
    bool isElided() const { return m_elided; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void refit();

    QString m_full;
    QString m_extraTip;
    Qt::TextElideMode m_mode;
    bool m_elided = false;
};

} // namespace reclaim::ui
