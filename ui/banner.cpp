#include "banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace reclaim::ui {

Banner::Banner(QWidget *parent)
    : QFrame(parent), m_label(new QLabel(this)),
      m_profile(new QPushButton(QStringLiteral("Connection profile\u2026"), this))
{
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_profile, 0, Qt::AlignTop);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_profile, &QPushButton::clicked, this, &Banner::profileRequested);
    render();
}

void Banner::setMessage(const QString &source, Severity severity, const QString &text,
                        bool offerProfile)
{
    if (text.isEmpty())
        m_messages.remove(source);
    else
        m_messages.insert(source, Message{severity, text, offerProfile});
    render();
}

QString Banner::text() const
{
    return m_label->text();
}

void Banner::render()
{
    if (m_messages.isEmpty()) {
        hide();
        m_label->clear();
        return;
    }
    Severity worst = Severity::Info;
    bool offer = false;
    QStringList lines;
    for (const Message &m : std::as_const(m_messages)) {
        worst = std::max(worst, m.severity);
        offer = offer || m.offerProfile;
        const QString tag = m.severity == Severity::Error     ? QStringLiteral("\u2715 Problem:")
                            : m.severity == Severity::Warning ? QStringLiteral("! Warning:")
                                                              : QStringLiteral("i Note:");
        lines << QStringLiteral("<b>%1</b> %2").arg(tag, m.text.toHtmlEscaped());
    }
    m_label->setText(lines.join(QStringLiteral("<br>")));
    const QString style =
        worst == Severity::Error     ? QStringLiteral("background:#fdecea; color:#611a15")
        : worst == Severity::Warning ? QStringLiteral("background:#fff4e5; color:#663c00")
                                     : QStringLiteral("background:#e8f4fd; color:#0d3c61");
    setStyleSheet(QStringLiteral("reclaim--ui--Banner { %1; border:1px solid #ccc }").arg(style) +
                  QStringLiteral(" QLabel { %1 }").arg(style));
    m_profile->setVisible(offer);
    show();
}

} // namespace reclaim::ui
