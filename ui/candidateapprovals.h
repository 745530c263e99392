// Approve (A), Reject (R) and Undo rejection (Ctrl+Z) for the action of the candidate selected
// in the main window: when each is possible, why not when it is not, and what is shown while the
// worker re-checks, runs or records it. The actions held by runners have their own commands
// (heldpanel.h); these are the console's own runs' plans.
#pragma once

#include "service/recoveryworker.h" // Action as a metatype, for the signals

#include <QHash>
#include <QObject>

class QAction;

namespace reclaim::ui {

class ActionsModel;
class Banner;
class CandidateTableModel;
class ConsoleSession;
struct Freshness;

class CandidateApprovals final : public QObject
{
    Q_OBJECT
public:
    struct Parts
    {
        ConsoleSession *session = nullptr;
        ActionsModel *actions = nullptr;
        CandidateTableModel *candidates = nullptr;
        const Freshness *freshness = nullptr; // the main window's, read at every update
        Banner *banner = nullptr;
        bool readOnly = false;
    };

    explicit CandidateApprovals(Parts parts, QObject *parent = nullptr);

    QAction *approveAction() const { return m_approve; }
    QAction *rejectAction() const { return m_reject; }
    QAction *undoRejectionAction() const { return m_undoReject; }

    void setCurrentKey(const QString &key);
    // Why approving the current selection is not possible ("" when it is).
    QString blocker() const;
    // Brings the commands up to date with the models, the session and the freshness.
    void update();
    // While another view owns A, R and Delete (the held actions' tab), these commands give
    // their shortcuts up, so one key never means two things.
    void setShortcutsActive(bool active);

signals:
    // What the actions pane under the table should say about approving now.
    void hintChanged(const QString &hint);
    // The selected candidate's state changed (approving, recording): re-show its details.
    void detailsChanged(const QString &key);
    void statusMessage(const QString &text);
    // A rejection was recorded (for the run chart).
    void rejected(const reclaim::Action &action);
    // A held action of the table was decided (here or in the held actions' tab): `action` as it
    // stands now, for the tables, the chart and the status bar.
    void heldActionDecided(const reclaim::Action &action, const QString &message);
    // A rejection (or its undo) came back: recorded, or `error` says why not.
    void rejectionShown(const reclaim::Action &action, const QString &error);

private:
    void approveCurrent();
    void rejectCurrent();
    void undoRejectionCurrent();
    void showRejection(const Action &action, const QString &error, bool undo);
    void showHeldDecision(const HeldDecision &decision);

    Parts m_parts;
    QString m_currentKey;
    QHash<qint64, QString> m_heldKeys; // held id → the table's key, for decisions sent from here
    QAction *m_approve;
    QAction *m_reject;
    QAction *m_undoReject;
};

} // namespace reclaim::ui
