// The audit history as a table: pages of reclaim.audit appended as they arrive, newest first.
// The model loads nothing itself: when a view scrolls to its end it asks for the next page
// (moreRequested), and the history view answers with appendPage().
#pragma once

#include "ports/audittrail.h"

#include <QAbstractTableModel>

namespace reclaim::ui {

class AuditModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        TimeColumn,
        ResultColumn,
        JobColumn,
        ActionColumn,
        OperatorColumn,
        PreconditionColumn,
        DetailColumn,
        ColumnCount
    };

    explicit AuditModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    void clear();
    void appendPage(const AuditPage &page);
    // A page request failed: no more requests until the next clear() or retry().
    void setFailed(bool failed);
    bool more() const { return m_more; }
    bool loading() const { return m_loading; }
    void setLoading(bool loading) { m_loading = loading; }
    // The id the next page starts below (0 before the first page).
    qint64 lastId() const { return m_entries.isEmpty() ? 0 : m_entries.last().id; }
    const AuditEntry &entry(int row) const { return m_entries.at(row); }
    const QList<AuditEntry> &entries() const { return m_entries; }

signals:
    void moreRequested();

private:
    QList<AuditEntry> m_entries;
    // Each row's local time, formatted once when its page arrives: a local-time conversion
    // costs a stat() of the zone file, and painting asks for it again and again.
    QList<QString> m_timeTexts;
    bool m_more = false;
    bool m_loading = false;
    bool m_failed = false;
};

} // namespace reclaim::ui
