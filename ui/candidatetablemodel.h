// The candidates of the latest run as one flat table keyed by (domain, row id). A new report is
// merged into the existing rows, so selection and scroll position survive every refresh.
#pragma once

#include "recovery/runreport.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <optional>

namespace reclaim::ui {

class CandidateTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        VerdictColumn,
        DomainColumn,
        IdColumn,
        TypeColumn,
        StatusColumn,
        AgeColumn,
        EvidenceColumn,
        ActionColumn,
        ColumnCount
    };
    enum Role
    {
        KeyRole = Qt::UserRole + 1, // "<domain>/<row id>", the same as the planned Action's id
        VerdictRole,                // int(Verdict)
        SortRole,                   // what the proxy sorts by, per column
        DomainRole,
        SearchTextRole, // lower-cased text the filter matches against
        AgeSecondsRole,
    };

    struct Row
    {
        CandidateVerdict verdict;
        QString summary;
        std::optional<Action> action;
        bool approving = false; // an approval is in flight on the worker
        QString searchText;
    };

    // What the last merge did, for tests and for the status line.
    struct MergeStats
    {
        int inserted = 0;
        int removed = 0;
        int changed = 0;
        bool reset = false;
    };

    explicit CandidateTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Merges a run's candidates and planned actions: rows are updated in place (one dataChanged
    // per contiguous range), only vanished rows are removed and only new ones appended; the
    // model is reset only when most rows came or went.
    void setReport(const RunReport &report);
    // The result of an approved (or rejected) action.
    void updateAction(const Action &action);
    void setApproving(const QString &key, bool approving);
    void clear();

    static QString keyOf(const QString &domain, const QString &rowId);
    const Row *rowAt(int row) const;
    const Row *rowForKey(const QString &key) const;
    int indexOfKey(const QString &key) const;
    QDateTime referenceTime() const { return m_now; }
    MergeStats lastMerge() const { return m_lastMerge; }

    static QString formatAge(qint64 seconds);
    static QString plannedText(const Row &row);

private:
    void rebuildIndex();
    void emitRowChanged(int first, int last);
    qint64 ageSeconds(const Row &row) const;

    QList<Row> m_rows;
    QHash<QString, int> m_index;
    QDateTime m_now;
    MergeStats m_lastMerge;
};

} // namespace reclaim::ui
