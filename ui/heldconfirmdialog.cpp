#include "heldconfirmdialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace reclaim::ui {

HeldConfirmDialog::HeldConfirmDialog(Decision decision,
                                     const QList<HeldActionsModel::GroupSummary> &groups,
                                     QWidget *parent)
    : QDialog(parent), m_decision(decision), m_text(new QLabel(this))
{
    const bool approving = decision == Decision::Approve;
    int requeues = 0;
    int fails = 0;
    QStringList domains;
    QString reasons;
    for (const HeldActionsModel::GroupSummary &g : groups) {
        if (g.openIds.isEmpty())
            continue;
        m_ids << g.openIds;
        requeues += g.requeues;
        fails += g.fails;
        if (!domains.contains(g.domain))
            domains << g.domain;
        reasons += QStringLiteral("<li><b>%1</b> (%2): %3</li>")
                       .arg(g.domain.toHtmlEscaped(), heldKindsText(g.requeues, g.fails),
                            g.reason.toHtmlEscaped());
    }
    const QString count = QLocale().toString(m_ids.size());
    const QString noun = m_ids.size() == 1 ? QStringLiteral("action") : QStringLiteral("actions");
    setWindowTitle(approving ? QStringLiteral("Approve held actions")
                             : QStringLiteral("Reject held actions"));
    QString html = QStringLiteral("<p><b>%1 %2 held %3 of %4</b> — %5.</p>")
                       .arg(approving ? QStringLiteral("Approve") : QStringLiteral("Reject"), count,
                            noun, domains.join(QStringLiteral(", ")).toHtmlEscaped(),
                            heldKindsText(requeues, fails));
    html += QStringLiteral("<p>Why they were held:</p><ul>%1</ul>").arg(reasons);
    html += approving
                ? QStringLiteral(
                      "<p>Each is checked again before it runs: the row as it is now, then, under "
                      "the lock, a fresh lookup of its job. One whose row or job moved on is "
                      "dropped with the reason, not run. Each writes its own audit row, with "
                      "your name.</p>")
                : QStringLiteral("<p>Nothing is written to the jobs. Each rejection is recorded "
                                 "with your name and reason, and no run offers the action again "
                                 "while its row keeps the status and updatedAt it was held "
                                 "with.</p>");
    m_text->setText(html);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    if (!approving) {
        m_reason = new QLineEdit(this);
        m_reason->setPlaceholderText(QStringLiteral("Why (recorded with the rejection)"));
        layout->addWidget(m_reason);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_confirm = buttons->addButton(
        QStringLiteral("%1 %2 %3")
            .arg(approving ? QStringLiteral("Approve") : QStringLiteral("Reject"), count, noun),
        QDialogButtonBox::AcceptRole);
    // Enter must not approve thousands of writes by accident: the safe button is the default.
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    m_confirm->setAutoDefault(false);
    m_confirm->setEnabled(!m_ids.isEmpty());
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setMinimumWidth(560);
}

QString HeldConfirmDialog::reason() const
{
    return m_reason ? m_reason->text().trimmed() : QString();
}

QString HeldConfirmDialog::text() const
{
    return QTextDocumentFragment::fromHtml(m_text->text()).toPlainText();
}

} // namespace reclaim::ui
