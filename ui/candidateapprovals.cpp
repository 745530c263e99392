#include "candidateapprovals.h"

#include "actionsmodel.h"
#include "banner.h"
#include "candidatetablemodel.h"
#include "config/connectionurl.h"
#include "consolesession.h"
#include "freshness.h"
#include "verdictstyle.h"

#include <QAction>

namespace reclaim::ui {

namespace {

QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

} // namespace

CandidateApprovals::CandidateApprovals(Parts parts, QObject *parent)
    : QObject(parent), m_parts(parts), m_approve(new QAction(QStringLiteral("Approve"), this)),
      m_reject(new QAction(QStringLiteral("Reject"), this)),
      m_undoReject(new QAction(QStringLiteral("Undo rejection"), this))
{
    m_reject->setIconText(QStringLiteral("Reject (R)"));
    m_reject->setToolTip(QStringLiteral(
        "Do not run this action (R or Delete). The job row is not touched; the rejection is "
        "recorded in reclaim.audit and the action is not offered again while the row keeps this "
        "status and updatedAt."));
    m_undoReject->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    m_undoReject->setIconText(QStringLiteral("Undo rejection (Ctrl+Z)"));
    m_undoReject->setToolTip(QStringLiteral(
        "Withdraw the recorded rejection of this action (Ctrl+Z): it can be approved again now, "
        "and every run offers it again."));
    setShortcutsActive(true);
    connect(m_approve, &QAction::triggered, this, &CandidateApprovals::approveCurrent);
    connect(m_reject, &QAction::triggered, this, &CandidateApprovals::rejectCurrent);
    connect(m_undoReject, &QAction::triggered, this, &CandidateApprovals::undoRejectionCurrent);
    connect(m_parts.session, &ConsoleSession::rejectionRecorded, this,
            [this](const Action &action, const QString &error) {
                showRejection(action, error, false);
            });
    connect(
        m_parts.session, &ConsoleSession::rejectionUndone, this,
        [this](const Action &action, const QString &error) { showRejection(action, error, true); });
    connect(m_parts.session, &ConsoleSession::heldDecided, this,
            &CandidateApprovals::showHeldDecision);
}

void CandidateApprovals::setShortcutsActive(bool active)
{
    m_approve->setShortcuts(active ? QList<QKeySequence>{QKeySequence(Qt::Key_A)}
                                   : QList<QKeySequence>{});
    m_reject->setShortcuts(
        active ? QList<QKeySequence>{QKeySequence(Qt::Key_R), QKeySequence(Qt::Key_Delete)}
               : QList<QKeySequence>{});
}

void CandidateApprovals::setCurrentKey(const QString &key)
{
    m_currentKey = key;
    update();
}

QString CandidateApprovals::blocker() const
{
    if (m_currentKey.isEmpty())
        return QStringLiteral("Select a job with a planned action.");
    // What the job is decides first: an UNKNOWN or SCHEDULED job never has anything to approve.
    const CandidateTableModel::Row *row = m_parts.candidates->rowForKey(m_currentKey);
    const Action *action = m_parts.actions->actionFor(m_currentKey);
    if (row && row->verdict->verdict == Verdict::Unknown)
        return QStringLiteral("UNKNOWN: Reclaim could not look, so there is nothing to approve; it "
                              "looks again next run.");
    if (row && row->verdict->verdict == Verdict::Scheduled)
        return QStringLiteral("SCHEDULED: the job is in its queue; nothing to do.");
    if (m_parts.readOnly)
        return QStringLiteral("Read-only console (--read-only): approvals are off.");
    if (!m_parts.session->hasConfig())
        return QStringLiteral("Not connected: fix the connection profile first.");
    if (!action)
        return QStringLiteral("No action is planned for this job.");
    if (m_parts.actions->isApproving(m_currentKey))
        return QStringLiteral("Running: re-checking under the lock, then executing\u2026");
    if (m_parts.actions->isRecording(m_currentKey))
        return QStringLiteral("Recording the rejection (or its undo) in the database\u2026");
    if (action->result == ActionResult::Rejected)
        return QStringLiteral("Rejected by %1 at %2: not offered again while the row keeps this "
                              "status and updatedAt. Undo the rejection (Ctrl+Z) to approve it.")
            .arg(action->rejectedBy.isEmpty() ? QStringLiteral("an operator") : action->rejectedBy,
                 hhmmss(action->executedAt));
    if (action->result != ActionResult::Pending)
        return QStringLiteral("Already done: %1 at %2.")
            .arg(actionResultText(action->result), hhmmss(action->executedAt));
    if (m_parts.freshness->stale())
        return m_parts.freshness->approvalHold(QDateTime::currentDateTimeUtc());
    if (!row)
        return QStringLiteral("The job is no longer a candidate in the latest run.");
    return {};
}

void CandidateApprovals::update()
{
    const QString why = blocker();
    const Action *action = m_parts.actions->actionFor(m_currentKey);
    const bool busy =
        m_parts.actions->isApproving(m_currentKey) || m_parts.actions->isRecording(m_currentKey);
    const bool pending = action && action->result == ActionResult::Pending && !busy;
    const bool writable = !m_parts.readOnly && m_parts.session->hasConfig();
    m_approve->setEnabled(why.isEmpty());
    m_reject->setEnabled(writable && pending);
    m_undoReject->setEnabled(writable && action && action->result == ActionResult::Rejected &&
                             !busy);
    m_approve->setText(pending ? QStringLiteral("Approve %1").arg(actionKindName(action->kind))
                               : QStringLiteral("Approve"));
    m_approve->setIconText(m_approve->text() +
                           QStringLiteral(" (A)")); // the button says its shortcut
    m_approve->setToolTip(
        why.isEmpty()
            ? QStringLiteral("Run this action now (A). Reclaim takes the lock and looks the job up "
                             "again first; if it is no longer ABSENT, nothing is done.")
            : why);
    emit hintChanged(why.isEmpty() ? QStringLiteral("Re-checked under the lock before it runs.")
                                   : why);
}

void CandidateApprovals::approveCurrent()
{
    if (!blocker().isEmpty())
        return;
    const CandidateTableModel::Row *row = m_parts.candidates->rowForKey(m_currentKey);
    const Action *action = m_parts.actions->actionFor(m_currentKey);
    // An action a run kept among the held ones is approved as one: claimed first, so the
    // daemon, the command line and the held actions' tab all see who decided it.
    const bool sent = action->heldId > 0
                          ? m_parts.session->approveHeld({action->heldId})
                          : m_parts.session->approve(*action, row->verdict->candidate);
    if (!sent)
        return;
    if (action->heldId > 0)
        m_heldKeys.insert(action->heldId, m_currentKey);
    m_parts.actions->setApproving(m_currentKey, true);
    m_parts.candidates->setApproving(m_currentKey, true);
    emit detailsChanged(m_currentKey);
    update();
}

// A rejection is the operator's decision, so it is recorded (reclaim.rejection and its audit
// row) before it is shown: until the database answers the action reads "rejecting…", and if the
// write fails it stays awaiting approval with the reason in the banner.
void CandidateApprovals::rejectCurrent()
{
    const Action *action = m_parts.actions->actionFor(m_currentKey);
    if (m_parts.readOnly || !action || action->result != ActionResult::Pending ||
        m_parts.actions->isApproving(m_currentKey) || m_parts.actions->isRecording(m_currentKey))
        return;
    if (!m_parts.session->reject(*action))
        return;
    m_parts.actions->setRecording(m_currentKey, true);
    emit detailsChanged(m_currentKey);
    update();
}

void CandidateApprovals::undoRejectionCurrent()
{
    const Action *action = m_parts.actions->actionFor(m_currentKey);
    if (m_parts.readOnly || !action || action->result != ActionResult::Rejected ||
        m_parts.actions->isRecording(m_currentKey))
        return;
    if (!m_parts.session->undoRejection(*action))
        return;
    m_parts.actions->setRecording(m_currentKey, true);
    emit detailsChanged(m_currentKey);
    update();
}

void CandidateApprovals::showRejection(const Action &action, const QString &error, bool undo)
{
    m_parts.actions->setRecording(action.id, false);
    const QString what = undo ? QStringLiteral("Undoing the rejection of %1").arg(action.id)
                              : QStringLiteral("Rejecting %1").arg(action.id);
    if (!error.isEmpty()) {
        m_parts.banner->setMessage(
            QStringLiteral("rejection"), Banner::Severity::Warning,
            QStringLiteral("%1 was not recorded: %2. The action is unchanged (%3).")
                .arg(what, redactSecrets(error), actionResultText(action.result)));
    } else {
        m_parts.banner->clearMessage(QStringLiteral("rejection"));
        m_parts.actions->updateAction(action);
        m_parts.candidates->updateAction(action);
        if (!undo)
            emit rejected(action);
        emit statusMessage(
            undo
                ? QStringLiteral("Rejection of %1 undone: it can be approved again.").arg(action.id)
                : QStringLiteral("%1 %2: %3, recorded in reclaim.audit")
                      .arg(actionKindName(action.kind), action.id, actionOutcomeText(action)));
    }
    if (action.id == m_currentKey)
        emit detailsChanged(action.id);
    update();
    emit rejectionShown(action, error);
}

// The table's actions carry the held id a run kept them under: a decision on that id, from
// this view or the held actions' tab, is shown on the table's row too.
void CandidateApprovals::showHeldDecision(const HeldDecision &decision)
{
    QString key = m_heldKeys.take(decision.id);
    if (key.isEmpty() && decision.current)
        key = decision.current->action.id;
    const Action *shown = m_parts.actions->actionFor(key);
    if (!shown || shown->heldId != decision.id)
        return;
    Action now = decision.action ? *decision.action : *shown;
    now.id = key;
    now.heldId = decision.id;
    using Outcome = HeldDecision::Outcome;
    switch (decision.outcome) {
    case Outcome::Executed:
    case Outcome::Superseded:
        if (!decision.action) { // dropped before anything ran: the row moved on
            now.result = ActionResult::Dropped;
            now.resultDetail = decision.detail;
            now.executedAt = QDateTime::currentDateTimeUtc();
        }
        break; // otherwise what ran (or was dropped on the re-check) is `decision.action`
    case Outcome::Rejected:
        now.result = ActionResult::Rejected;
        now.rejectedBy = decision.current ? decision.current->stateBy : QString();
        now.resultDetail = decision.detail;
        now.executedAt = QDateTime::currentDateTimeUtc();
        break;
    case Outcome::AlreadyTaken:
        now.result = ActionResult::Dropped;
        now.resultDetail = decision.detail;
        now.executedAt = QDateTime::currentDateTimeUtc();
        break;
    case Outcome::HeldAgain:
    case Outcome::NoSuchAction:
    case Outcome::StoreFailed:
        now.result = ActionResult::Pending; // nothing was decided: it can be approved again
        break;
    }
    emit heldActionDecided(now, QStringLiteral("%1 %2 (held #%3): %4 — %5")
                                    .arg(actionKindName(now.kind), key)
                                    .arg(decision.id)
                                    .arg(heldOutcomeName(decision.outcome), decision.detail));
}

} // namespace reclaim::ui
