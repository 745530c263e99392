// The candidates of the latest run as one flat table keyed by (domain, row id). A new report is
// merged into the existing rows, so selection and scroll position survive every refresh.
#pragma once

#include "candidaterows.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <optional>

namespace reclaim::ui {

class CandidateTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    using Column = CandidateColumn;
    using enum CandidateColumn;
    enum Role
    {
        KeyRole = Qt::UserRole + 1, // "<domain>/<row id>", the same as the planned Action's id
        VerdictRole,                // int(Verdict)
        SortRole,                   // what a column sorts by
        DomainRole,
        SearchTextRole, // the row's text, lower-cased (the filter searches the fields in place)
        AgeSecondsRole,
    };

    using Row = CandidateRow;

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
    // per contiguous range), only vanished rows are removed and new ones inserted, and the rows
    // then take the new order (one layout change); the model is reset only when it was empty or
    // when most rows came or went.
    void setReport(const RunReport &report);
    // The same with the rows already built (buildCandidateRows, on another thread): a reset only
    // swaps them in, a merge copies only the rows that changed or are new. Rows built in another
    // order than the model's are sorted first (on this thread: build them in order()).
    void setRows(CandidateRows incoming);
    // The rows are kept in this order (the candidate table's proxy only filters): a view's sort
    // lands here, and the console builds each report's rows in it off the UI thread.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    CandidateOrder order() const { return m_order; }
    // The result of an approved (or rejected) action.
    void updateAction(const Action &action);
    void setApproving(const QString &key, bool approving);
    // Marks every row as what an earlier run saw (the latest run did not complete): greyed,
    // the verdict reads "ABSENT \u00b7 stale", and `why` (which run, how old) is in its tooltip.
    void setStale(bool stale, const QString &why);
    bool isStale() const { return m_stale; }
    void clear();

    const Row *rowAt(int row) const;
    const Row *rowForKey(const QString &key) const;
    int indexOfKey(const QString &key) const;
    QDateTime referenceTime() const { return m_now; }
    MergeStats lastMerge() const { return m_lastMerge; }

    // Seconds since the row's updatedAt as of the last report (-1: unknown).
    qint64 ageSeconds(const Row &row) const;

    static QString formatAge(qint64 seconds);

private:
    void rebuildIndex();
    void emitRowChanged(int first, int last);
    // Moves the rows to `order` (a layout change), `placed` holding the keys in that order.
    void reorderTo(const QList<CandidateRow> &placed, const QHash<QString, int> &placedIndex);

    std::shared_ptr<const RunReport> m_report; // what the rows' verdicts point into
    QList<Row> m_rows;
    QHash<QString, int> m_index;
    QDateTime m_now;
    std::optional<qint64> m_nowSecs;
    MergeStats m_lastMerge;
    bool m_stale = false;
    QString m_staleWhy;
    CandidateOrder m_order;
};

} // namespace reclaim::ui
