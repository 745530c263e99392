#include "heldpanel.h"

#include "actionsmodel.h"
#include "config/connectionurl.h"
#include "consolesession.h"
#include "heldactionsmodel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSet>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

// Rows a column's width is measured from: those in view, then alternately above and below them.
constexpr int kRowsSized = 50;

QString when(const QDateTime &t)
{
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                       : QStringLiteral("\u2014");
}

QString line(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td style='color:#546e7a;padding-right:10px'>%1</td>"
                          "<td>%2</td></tr>")
        .arg(label, value);
}

QString entryHtml(const HeldAction &h, const QString &decision, const QString &decisionDetail)
{
    const Action &a = h.action;
    QString rows;
    rows += line(QStringLiteral("Why held"), redactSecrets(a.heldReason).toHtmlEscaped());
    rows += line(QStringLiteral("Planned"),
                 QStringLiteral("<b>%1</b> \u2014 %2")
                     .arg(actionKindName(a.kind), redactSecrets(a.reason).toHtmlEscaped()));
    if (a.kind == ActionKind::Requeue)
        rows += line(
            QStringLiteral("Writes"),
            QStringLiteral("queue <b>%1</b>, job id %2, name %3")
                .arg(a.queue.toHtmlEscaped(), a.jobId.toHtmlEscaped(), a.jobName.toHtmlEscaped()));
    rows += line(QStringLiteral("Row as seen"), preconditionText(a.precondition).toHtmlEscaped());
    rows += line(QStringLiteral("Held"),
                 QStringLiteral("%1 by run %2").arg(when(h.heldAt), h.runId.toHtmlEscaped()));
    rows +=
        line(QStringLiteral("Last planned"),
             QStringLiteral("%1 by run %2").arg(when(h.lastSeenAt), h.lastRunId.toHtmlEscaped()));
    QString state = heldStateName(h.state);
    if (!h.stateBy.isEmpty())
        state += QStringLiteral(" by %1 at %2").arg(h.stateBy.toHtmlEscaped(), when(h.stateAt));
    if (!h.stateDetail.isEmpty())
        state += QStringLiteral(": ") + redactSecrets(h.stateDetail).toHtmlEscaped();
    rows += line(QStringLiteral("State"), state);
    if (!decision.isEmpty())
        rows +=
            line(QStringLiteral("Your decision"),
                 QStringLiteral("<b>%1</b> \u2014 %2")
                     .arg(decision.toHtmlEscaped(), redactSecrets(decisionDetail).toHtmlEscaped()));
    return QStringLiteral("<p><b>#%1 \u00b7 %2 / %3</b></p><table>%4</table>")
        .arg(h.id)
        .arg(a.domain.toHtmlEscaped(), a.rowId.toHtmlEscaped(), rows);
}

QString groupHtml(const HeldActionsModel::GroupSummary &g, int total)
{
    return QStringLiteral("<p><b>%1 \u2014 %2</b></p><p>%3</p><p>%4 of %5 still wait for an "
                          "operator (%6). Approve (A) with the group selected approves them all, "
                          "behind a confirmation.</p>")
        .arg(g.domain.toHtmlEscaped(), heldLimitText(g.limit).toHtmlEscaped(),
             redactSecrets(g.reason).toHtmlEscaped(), QLocale().toString(g.openIds.size()),
             QLocale().toString(total), heldKindsText(g.requeues, g.fails));
}

} // namespace

HeldPanel::HeldPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new HeldActionsModel(this)),
      m_view(new QTreeView(this)), m_summary(new QLabel(this)), m_hint(new QLabel(this)),
      m_evidence(new QTextBrowser(this))
{
    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    // A listing sizes its columns from the rows in view and a few around them, not from Qt's
    // default of 1,000 rows per column: on a 20,000-entry listing, measuring 5,000 texts was
    // half of the UI thread's time, and the rows of one listing are alike.
    m_view->header()->setResizeContentsPrecision(kRowsSized);
    m_evidence->setOpenLinks(false);

    // The panel's shortcuts work while it is shown (the main window hands A and R over to it).
    m_approve = new QAction(QStringLiteral("Approve (A)"), this);
    m_approve->setShortcut(QKeySequence(Qt::Key_A));
    m_approve->setToolTip(QStringLiteral(
        "Approve the selected held actions (A). More than one asks for confirmation first. Each "
        "is checked again under the lock before it runs."));
    m_reject = new QAction(QStringLiteral("Reject (R)"), this);
    m_reject->setShortcuts({QKeySequence(Qt::Key_R), QKeySequence(Qt::Key_Delete)});
    m_reject->setToolTip(QStringLiteral(
        "Reject the selected held actions (R): nothing is written to the jobs; the rejection is "
        "recorded with your name."));
    m_approveDomain = new QAction(QStringLiteral("Approve domain\u2026"), this);
    m_approveDomain->setToolTip(QStringLiteral(
        "Approve every action of the selected action's domain that waits, whatever held it, "
        "behind a confirmation."));
    m_refresh = new QAction(QStringLiteral("Refresh"), this);
    m_refresh->setToolTip(QStringLiteral("Read the held actions again."));
    m_clearDecided = new QAction(QStringLiteral("Clear decided"), this);
    m_clearDecided->setToolTip(QStringLiteral(
        "Remove the actions decided in this console from the list (the audit keeps them)."));
    for (QAction *a : {m_approve, m_reject, m_approveDomain, m_refresh, m_clearDecided})
        addAction(a);
    connect(m_approve, &QAction::triggered, this, &HeldPanel::approveSelection);
    connect(m_reject, &QAction::triggered, this, &HeldPanel::rejectSelection);
    connect(m_approveDomain, &QAction::triggered, this, &HeldPanel::approveDomain);
    connect(m_refresh, &QAction::triggered, this, &HeldPanel::refresh);
    connect(m_clearDecided, &QAction::triggered, this, [this] {
        m_model->clearDecided();
        m_view->expandAll();
        m_summary->setText(summary());
        updateActions();
        showEvidence();
    });

    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    for (QAction *a : {m_approve, m_reject, m_approveDomain, m_refresh, m_clearDecided}) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        buttons->addWidget(b);
    }
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("color:#455a64"));
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    buttons->addWidget(m_hint, 1);

    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_summary->setWordWrap(true);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_evidence);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    connect(m_session, &ConsoleSession::heldListed, this, &HeldPanel::showListing);
    connect(m_session, &ConsoleSession::heldDecided, this, &HeldPanel::showDecision);
    m_decisionFlush.setSingleShot(true);
    m_decisionFlush.setInterval(0);
    connect(&m_decisionFlush, &QTimer::timeout, this, &HeldPanel::showPendingDecisions);
    connect(m_session, &ConsoleSession::heldDecisionsDone, this, &HeldPanel::refresh);
    // A run may hold new actions or settle old ones: read the list again after each.
    connect(m_session, &ConsoleSession::runFinished, this, &HeldPanel::refresh);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        showEvidence();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &HeldPanel::showEvidence);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this] {
        updateActions();
        showEvidence();
    });
    m_summary->setText(summary());
    updateActions();
}

void HeldPanel::refresh()
{
    if (m_listing || m_session->heldDecisionsInFlight())
        return; // the answer on its way (or the one after the decisions) is as fresh
    m_listing = m_session->listHeld();
}

void HeldPanel::showListing(const QList<HeldAction> &held, const QString &error)
{
    showPendingDecisions(); // the listing keeps what this console decided: apply it first
    m_listing = false;
    m_listError = error;
    if (error.isEmpty()) {
        // Keep the operator's place: the same action selected and in view after the reset.
        const QModelIndex current = m_view->currentIndex();
        const qint64 keep = current.data(HeldActionsModel::IdRole).toLongLong();
        const bool wasEmpty = m_model->rowCount() == 0;
        m_model->setHeld(held);
        m_view->expandAll();
        // Sized when rows first arrive; after that the widths are the operator's to change,
        // and a refresh every few seconds does not undo them.
        if (wasEmpty)
            for (int c = 0; c < HeldActionsModel::StateColumn; ++c)
                m_view->resizeColumnToContents(c);
        const QModelIndex again = keep ? m_model->indexOf(keep) : QModelIndex();
        const QModelIndex target = again.isValid() ? again : m_model->index(0, 0);
        if (target.isValid())
            m_view->selectionModel()->setCurrentIndex(target, QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
    }
    m_summary->setText(summary());
    updateActions();
    showEvidence();
    emit waitingChanged(m_model->waitingCount());
    emit listed();
}

void HeldPanel::showDecision(const HeldDecision &decision)
{
    // A mass approval answers one decision at a time, 20,000 of them in a few seconds: shown
    // together once the event loop is free, not one model change and panel update each.
    m_pendingDecisions << decision;
    if (!m_decisionFlush.isActive())
        m_decisionFlush.start();
}

void HeldPanel::showPendingDecisions()
{
    const QList<HeldDecision> decisions = std::exchange(m_pendingDecisions, {});
    if (decisions.isEmpty())
        return;
    m_model->applyDecisions(decisions);
    m_summary->setText(summary());
    emit waitingChanged(m_model->waitingCount());
    for (const HeldDecision &d : decisions)
        emit decided(d);
}

QString HeldPanel::summary() const
{
    if (!m_listError.isEmpty())
        return QStringLiteral("Could not read the held actions: %1. What is shown is from the "
                              "last listing that worked.")
            .arg(redactSecrets(m_listError));
    const int waiting = m_model->waitingCount();
    if (waiting == 0 && m_model->rowCount() == 0)
        return QStringLiteral("Nothing is held for approval.");
    QStringList domains;
    for (int g = 0; g < m_model->rowCount(); ++g) {
        const auto s = m_model->summary(m_model->index(g, 0));
        if (!s.openIds.isEmpty() && !domains.contains(s.domain))
            domains << s.domain;
    }
    if (waiting == 0)
        return QStringLiteral("Nothing waits for an operator any more.");
    return QStringLiteral("%1 held action%2 of %3 wait%4 for an operator.")
        .arg(QLocale().toString(waiting), waiting == 1 ? QString() : QStringLiteral("s"),
             domains.join(QStringLiteral(", ")), waiting == 1 ? QStringLiteral("s") : QString());
}

QList<qint64> HeldPanel::selectedIds() const
{
    // A group selected stands for all of its open actions, 20,000 after a data loss: kept in a
    // set as they are gathered, not searched for in the list each time.
    QList<qint64> ids;
    QSet<qint64> seen;
    const auto add = [&](qint64 id) {
        if (!seen.contains(id)) {
            seen.insert(id);
            ids << id;
        }
    };
    for (const QModelIndex &row : m_view->selectionModel()->selectedRows()) {
        if (row.data(HeldActionsModel::GroupRole).toBool()) {
            for (qint64 id : m_model->summary(row).openIds)
                add(id);
            continue;
        }
        const qint64 id = row.data(HeldActionsModel::IdRole).toLongLong();
        if (m_model->isDecidable(id))
            add(id);
    }
    return ids;
}

QString HeldPanel::approvalBlocker() const
{
    if (m_session->readOnly())
        return QStringLiteral("Read-only console (--read-only): approvals are off.");
    if (!m_session->hasConfig())
        return QStringLiteral("Not connected: fix the connection profile first.");
    if (m_session->heldDecisionsInFlight())
        return QStringLiteral("Deciding: each approval is re-checked under the lock, then "
                              "run\u2026");
    if (m_model->waitingCount() == 0)
        return QStringLiteral("Nothing waits for an operator.");
    if (selectedIds().isEmpty())
        return QStringLiteral("Select held actions, or a group to decide it whole.");
    return {};
}

void HeldPanel::updateActions()
{
    const QString blocker = approvalBlocker();
    m_approve->setEnabled(blocker.isEmpty());
    m_reject->setEnabled(blocker.isEmpty());
    const QModelIndex current = m_view->currentIndex();
    const QString domain = current.isValid() ? m_model->summary(current).domain : QString();
    int domainOpen = 0;
    for (const auto &g : m_model->summariesOfDomain(domain))
        domainOpen += static_cast<int>(g.openIds.size());
    m_approveDomain->setEnabled(!m_session->readOnly() && m_session->hasConfig() &&
                                !m_session->heldDecisionsInFlight() && domainOpen > 0);
    m_approveDomain->setText(domain.isEmpty()
                                 ? QStringLiteral("Approve domain\u2026")
                                 : QStringLiteral("Approve all of %1\u2026").arg(domain));
    const int decided = m_model->decidedCount();
    m_clearDecided->setEnabled(decided > 0 && !m_session->heldDecisionsInFlight());
    m_clearDecided->setText(
        decided > 0 ? QStringLiteral("Clear decided (%1)").arg(QLocale().toString(decided))
                    : QStringLiteral("Clear decided"));
    const int n = static_cast<int>(selectedIds().size());
    m_approve->setText(n > 1 ? QStringLiteral("Approve %1\u2026 (A)").arg(QLocale().toString(n))
                             : QStringLiteral("Approve (A)"));
    m_reject->setText(n > 1 ? QStringLiteral("Reject %1\u2026 (R)").arg(QLocale().toString(n))
                            : QStringLiteral("Reject (R)"));
    m_hint->setText(blocker.isEmpty()
                        ? QStringLiteral("Re-checked under the lock before it runs; one whose row "
                                         "or job moved on is dropped, not run.")
                        : blocker);
}

void HeldPanel::showEvidence()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid()) {
        m_evidence->setHtml(QStringLiteral("<p style='color:#607d8b'>Select a held action to see "
                                           "why it was held and the row it was planned "
                                           "on.</p>"));
        return;
    }
    if (current.data(HeldActionsModel::GroupRole).toBool()) {
        const QModelIndex first = current.siblingAtColumn(0);
        m_evidence->setHtml(groupHtml(m_model->summary(first), m_model->rowCount(first)));
        return;
    }
    const HeldAction *h = m_model->heldAction(current);
    if (!h)
        return;
    const QModelIndex state = current.siblingAtColumn(HeldActionsModel::StateColumn);
    m_evidence->setHtml(
        entryHtml(*h, m_model->decisionText(h->id), state.data(Qt::ToolTipRole).toString()));
}

QString HeldPanel::evidenceText() const
{
    return m_evidence->toPlainText();
}

void HeldPanel::approve(const QList<qint64> &ids)
{
    if (!m_session->approveHeld(ids))
        return;
    m_model->setDeciding(ids);
    updateActions();
}

void HeldPanel::reject(const QList<qint64> &ids, const QString &reason)
{
    if (!m_session->rejectHeld(ids, reason.isEmpty() ? QStringLiteral("rejected in the console")
                                                     : reason))
        return;
    m_model->setDeciding(ids);
    updateActions();
}

// The groups `ids` fall in, each narrowed to the chosen ids, for the confirmation to state.
QList<HeldActionsModel::GroupSummary> HeldPanel::groupsOf(const QList<qint64> &ids) const
{
    QList<HeldActionsModel::GroupSummary> groups;
    for (int g = 0; g < m_model->rowCount(); ++g) {
        HeldActionsModel::GroupSummary s = m_model->summary(m_model->index(g, 0));
        QList<qint64> chosen;
        s.requeues = 0;
        s.fails = 0;
        for (qint64 id : s.openIds) {
            if (!ids.contains(id))
                continue;
            chosen << id;
            (m_model->heldAction(id)->action.kind == ActionKind::Requeue ? s.requeues : s.fails) +=
                1;
        }
        s.openIds = chosen;
        if (!chosen.isEmpty())
            groups << s;
    }
    return groups;
}

void HeldPanel::approveSelection()
{
    const QList<qint64> ids = selectedIds();
    if (!approvalBlocker().isEmpty() || ids.isEmpty())
        return;
    // One action at a time, as in the candidates' view; anything more is confirmed first.
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    const bool wholeGroup = std::any_of(rows.cbegin(), rows.cend(), [](const QModelIndex &i) {
        return i.data(HeldActionsModel::GroupRole).toBool();
    });
    if (ids.size() == 1 && !wholeGroup) {
        approve(ids);
        return;
    }
    confirm(HeldConfirmDialog::Decision::Approve, groupsOf(ids));
}

void HeldPanel::rejectSelection()
{
    const QList<qint64> ids = selectedIds();
    if (!approvalBlocker().isEmpty() || ids.isEmpty())
        return;
    if (ids.size() == 1) {
        reject(ids, {});
        return;
    }
    confirm(HeldConfirmDialog::Decision::Reject, groupsOf(ids));
}

void HeldPanel::approveDomain()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || !m_approveDomain->isEnabled())
        return;
    confirm(HeldConfirmDialog::Decision::Approve,
            m_model->summariesOfDomain(m_model->summary(current).domain));
}

void HeldPanel::confirm(HeldConfirmDialog::Decision decision,
                        const QList<HeldActionsModel::GroupSummary> &groups)
{
    if (m_confirmation)
        return; // one question at a time
    auto *dialog = new HeldConfirmDialog(decision, groups, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_confirmation = dialog;
    connect(dialog, &QObject::destroyed, this, [this] { m_confirmation = nullptr; });
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (dialog->decision() == HeldConfirmDialog::Decision::Approve)
            approve(dialog->ids());
        else
            reject(dialog->ids(), dialog->reason());
    });
    dialog->open();
}

} // namespace reclaim::ui
