// Planned recovery actions with their preconditions, and each one's result once it has run.
// A refresh replaces what is still pending with the new plan and keeps finished actions as
// history (even when the same row is planned again), so the operator sees what was done to
// which row and when. Lookups by id find the newest entry. Cells are compact (the panel is
// narrow); tooltips and the panel's pane below the table say everything in full.
#pragma once

#include "domain/runreport.h"
#include "plannedactions.h"

#include <QAbstractTableModel>
#include <QHash>
#include <array>
#include <optional>

namespace reclaim::ui {

class ActionsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    using Column = ActionsTable::Column;
    using enum ActionsTable::Column;
    enum Role
    {
        KeyRole = Qt::UserRole + 1, // Action::id, "<domain>/<row id>"
        ResultRole,                 // int(ActionResult)
        ApprovingRole,              // bool
        RecordingRole,              // bool: a rejection (or its undo) is being recorded
    };

    explicit ActionsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Read-only consoles never run actions: pending ones read "planned, not run".
    void setReadOnly(bool readOnly) { m_readOnly = readOnly; }
    bool readOnly() const { return m_readOnly; }
    void setReport(const RunReport &report);
    // The same with the run's actions already copied (CandidateRows::actions, off the UI
    // thread): into an empty table, or over the same actions planned again, nothing is copied
    // here but pointers.
    void setPlan(const PlannedActions &plan, const QDateTime &finishedAt);
    void updateAction(const Action &action);
    void setApproving(const QString &key, bool approving);
    // A rejection of the action, or the undo of one, is on its way to the database; its answer
    // arrives through updateAction().
    void setRecording(const QString &key, bool recording);
    bool isRecording(const QString &key) const;
    // Pending actions are held (shown "on hold", `why` in their tooltip) while the tables show
    // an earlier run; an empty `why` releases them.
    void setHold(const QString &why);
    QString hold() const { return m_hold; }
    // Where the panel is too narrow, preconditions show whole seconds (the exact value stays in
    // the tooltip and the pane below the table).
    void setWholeSeconds(bool wholeSeconds);
    bool wholeSeconds() const { return m_wholeSeconds; }

    // Rows whose cells in `column` between them take every shape its text can have
    // (widthSamplesOf): a fresh plan's, or found in one pass and kept until the rows change.
    QList<int> widthSampleRows(int column) const;

    const Action *actionFor(const QString &key) const;
    bool isApproving(const QString &key) const;
    int rowOf(const QString &key) const { return m_index.value(key, -1); }
    int pendingCount() const;

private:
    using Entry = ActionEntry;
    void rebuildIndex();
    // Whether every row is a pending action and the plan lists the same ids in the same order.
    bool samePendingRows(const PlannedActions &plan) const;
    void emitRowChanged(int row);

    QList<Entry> m_entries;
    QHash<QString, int> m_index;
    PlannedActions m_plan; // the latest plan, shared with the tables that show it
    mutable std::optional<ActionWidthSamples> m_widthSamples;
    bool m_readOnly = false;
    QString m_hold;
    bool m_wholeSeconds = false;
};

// "PROCESSING · 23:57:16.608": the status and the time of day of the updatedAt the conditional
// write compares against (the date and the generation are in the full text).
QString compactPreconditionText(const Precondition &p, bool wholeSeconds = false);
// "status PROCESSING, updatedAt 2026-12-01 23:57:16.608, generation 7".
QString preconditionText(const Precondition &p);
// What the action does (pending) or what came of it (done), secrets redacted.
QString actionDetailText(const Action &a);

} // namespace reclaim::ui
