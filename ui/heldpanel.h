// "Held for approval" (#29): every action a runner held for an operator (the daemon's, a
// --once's, a console's), grouped by domain and by what held it, with the evidence of the one
// selected. Approve (A) and Reject (R) decide the selection: one action at once, more than one
// (or a whole group, or "Approve domain") behind a confirmation that states the count, the kinds
// and the guard's reason. Decisions run on the session's worker thread; each shows on its row as
// it comes back, and the list is read again when they are all done and after every run.
#pragma once

#include "heldconfirmdialog.h"
#include "service/recoveryworker.h" // HeldAction, HeldDecision as metatypes

#include <QTimer>
#include <QWidget>

class QAction;
class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeView;

namespace reclaim::ui {

class ConsoleSession;

class HeldPanel final : public QWidget
{
    Q_OBJECT
public:
    HeldPanel(ConsoleSession *session, QWidget *parent = nullptr);

    HeldActionsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QAction *approveAction() const { return m_approve; }
    QAction *rejectAction() const { return m_reject; }
    QAction *approveDomainAction() const { return m_approveDomain; }
    QAction *clearDecidedAction() const { return m_clearDecided; }
    // The ids Approve or Reject would decide now (the selection's open actions).
    QList<qint64> selectedIds() const;
    // The selected entry's evidence, as plain text (tests).
    QString evidenceText() const;
    // Why Approve is unavailable ("" when it is available).
    QString approvalBlocker() const;
    // "12 held actions of image-render wait for an operator." (or why nothing is known).
    QString summary() const;
    // The confirmation open now, if any.
    HeldConfirmDialog *pendingConfirmation() const { return m_confirmation; }

    // Asks the worker for the held actions again (answered through the session).
    void refresh();
    // Decides `ids` (no confirmation: the caller has it, or it is one action).
    void approve(const QList<qint64> &ids);
    void reject(const QList<qint64> &ids, const QString &reason);

signals:
    // The number waiting for an operator changed (the tab's title and the banner say it).
    void waitingChanged(int waiting);
    void listed();                                       // a listing arrived and is shown
    void decided(const reclaim::HeldDecision &decision); // one decision came back and is shown

private:
    void showListing(const QList<HeldAction> &held, const QString &error);
    void showDecision(const HeldDecision &decision);
    void showPendingDecisions();
    void approveSelection();
    void rejectSelection();
    void approveDomain();
    QList<HeldActionsModel::GroupSummary> groupsOf(const QList<qint64> &ids) const;
    void confirm(HeldConfirmDialog::Decision decision,
                 const QList<HeldActionsModel::GroupSummary> &groups);
    void updateActions();
    void showEvidence();

    ConsoleSession *m_session;
    HeldActionsModel *m_model;
    QTreeView *m_view;
    QLabel *m_summary;
    QLabel *m_hint;
    QTextBrowser *m_evidence;
    QAction *m_approve;
    QAction *m_reject;
    QAction *m_approveDomain;
    QAction *m_refresh;
    QAction *m_clearDecided;
    HeldConfirmDialog *m_confirmation = nullptr;
    QString m_listError;
    QList<HeldDecision> m_pendingDecisions; // come back, not shown yet
    QTimer m_decisionFlush;                 // shows them once the event loop is free
    bool m_listing = false;
};

} // namespace reclaim::ui
