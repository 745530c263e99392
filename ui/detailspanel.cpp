#include "detailspanel.h"

#include "evidencehtml.h"
#include "verdictstyle.h"

#include <QLabel>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace reclaim::ui {

DetailsPanel::DetailsPanel(QWidget *parent)
    : QWidget(parent), m_icon(new QLabel(this)), m_title(new QLabel(this)),
      m_summary(new QLabel(this)), m_body(new QTextBrowser(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *header = new QHBoxLayout;
    header->addWidget(m_icon);
    header->addWidget(m_title, 1);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_body, 1);
    QFont f = m_title->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    m_title->setFont(f);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true); // a long job id wraps rather than running off a narrow panel
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_body->setOpenLinks(false);
    showRow(nullptr);
}

QString DetailsPanel::html() const
{
    return m_body->toHtml();
}

void DetailsPanel::showRow(const CandidateTableModel::Row *row)
{
    if (!row) {
        m_key.clear();
        m_icon->clear();
        m_title->setText(QStringLiteral("No candidate selected"));
        m_summary->setText(
            QStringLiteral("Select a row to see what Reclaim saw in each queue, why it decided so, "
                           "and what it would do."));
        m_body->clear();
        return;
    }
    const Candidate &c = row->verdict->candidate;
    const QString &key = row->key;
    const bool same = key == m_key;
    const int scroll = m_body->verticalScrollBar()->value();
    m_key = key;
    const Verdict v = row->verdict->verdict;
    m_icon->setPixmap(verdictIcon(v).pixmap(24, 24));
    m_title->setText(QStringLiteral("<span style='color:%1'>%2 %3</span>&nbsp;&nbsp;%4 / %5%6")
                         .arg(verdictColor(v).name(), verdictGlyph(v), verdictName(v),
                              c.domain.toHtmlEscaped(), c.id.toHtmlEscaped(),
                              c.type.isEmpty()
                                  ? QString()
                                  : QStringLiteral(" (%1)").arg(c.type.toHtmlEscaped())));
    m_summary->setText(QStringLiteral("%1 &middot; DB %2 since %3")
                           .arg(row->summary().toHtmlEscaped(), c.status.toHtmlEscaped(),
                                c.updatedAtText.toHtmlEscaped()));
    m_body->setHtml(evidenceHtml(*row->verdict, row->action.get(), row->approving));
    if (same)
        m_body->verticalScrollBar()->setValue(scroll);
}

} // namespace reclaim::ui
