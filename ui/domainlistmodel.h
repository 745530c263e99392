// The domains of the latest run with their candidate counts by verdict, plus an "All domains"
// row; SeverityRole lets a proxy put the worst domain first.
#pragma once

#include "domain/runreport.h"

#include <QAbstractTableModel>
#include <optional>

namespace reclaim::ui {

class DomainListModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        UnknownColumn,
        AbsentColumn,
        ScheduledColumn,
        ColumnCount
    };
    enum Role
    {
        DomainRole = Qt::UserRole + 1, // the domain's name; empty for "All domains"
        SeverityRole,                  // larger is worse; "All domains" is always largest
    };

    explicit DomainListModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Updates counts in place while the set of domains stays the same (the usual refresh).
    void setReport(const RunReport &report);

private:
    struct Entry
    {
        QString name; // empty: the "All domains" row
        int unknown = 0;
        int absent = 0;
        int scheduled = 0;
        std::optional<QString> candidateError;
        std::optional<QString> scanError;
        int unreadable = 0; // for "All domains": how many domains could not be read

        bool operator==(const Entry &o) const = default;
    };
    static qint64 severityOf(const Entry &e);
    QString tooltipOf(const Entry &e) const;

    QList<Entry> m_entries;
};

} // namespace reclaim::ui
