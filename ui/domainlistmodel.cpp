#include "domainlistmodel.h"

#include "config/connectionurl.h"
#include "counttext.h"
#include "verdictstyle.h"

#include <QApplication>
#include <QFont>
#include <QStyle>
#include <algorithm>
#include <limits>

namespace reclaim::ui {

DomainListModel::DomainListModel(QObject *parent) : QAbstractTableModel(parent) {}

int DomainListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int DomainListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 DomainListModel::severityOf(const Entry &e)
{
    if (e.name.isEmpty())
        return std::numeric_limits<qint64>::max();
    // Unreadable first, then by UNKNOWN, then ABSENT, then SCHEDULED counts (20 bits each).
    static constexpr qint64 cap = (1 << 20) - 1;
    auto c = [](int n) {
        return std::min<qint64>(n, cap);
    };
    return (qint64(e.candidateError ? 1 : 0) << 62) | (c(e.unknown) << 41) | (c(e.absent) << 21) |
           c(e.scheduled);
}

QString DomainListModel::tooltipOf(const Entry &e) const
{
    if (e.name.isEmpty())
        return e.unreadable ? QStringLiteral("Every domain; %1 could not be read").arg(e.unreadable)
                            : QStringLiteral("Every domain");
    QStringList lines{QStringLiteral("%1: %2 unknown, %3 absent, %4 scheduled")
                          .arg(e.name)
                          .arg(e.unknown)
                          .arg(e.absent)
                          .arg(e.scheduled)};
    if (e.candidateError)
        lines << QStringLiteral("Could not read the job table: %1").arg(*e.candidateError);
    if (e.scanError)
        lines << QStringLiteral("The queue scan did not finish: %1").arg(*e.scanError);
    return lines.join(QLatin1Char('\n'));
}

QVariant DomainListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries.at(index.row());
    switch (role) {
    case DomainRole:
        return e.name;
    case SeverityRole:
        return severityOf(e);
    case Qt::ToolTipRole:
        return tooltipOf(e);
    default:
        break;
    }
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        if (column == NameColumn) {
            if (e.name.isEmpty())
                return QStringLiteral("All domains");
            return e.candidateError ? QStringLiteral("%1 (not read)").arg(e.name) : e.name;
        }
        // A table that could not be read has no counts, not zero counts.
        if (e.candidateError)
            return QStringLiteral("\u2014");
        const int n = column == UnknownColumn  ? e.unknown
                      : column == AbsentColumn ? e.absent
                                               : e.scheduled;
        return countText(n); // the list sorts by SeverityRole, never by this text
    }
    if (role == Qt::DecorationRole && column == NameColumn && !e.name.isEmpty()) {
        if (e.candidateError)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        const Verdict worst = e.unknown  ? Verdict::Unknown
                              : e.absent ? Verdict::Absent
                                         : Verdict::Scheduled;
        return verdictIcon(worst);
    }
    if (role == Qt::ForegroundRole) {
        if (column == UnknownColumn && e.unknown)
            return verdictColor(Verdict::Unknown);
        if (column == AbsentColumn && e.absent)
            return verdictColor(Verdict::Absent);
        if (column == NameColumn && e.candidateError)
            return verdictColor(Verdict::Absent);
        return {};
    }
    if (role == Qt::FontRole && (e.name.isEmpty() || (column == UnknownColumn && e.unknown) ||
                                 (column == AbsentColumn && e.absent))) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole && column != NameColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant DomainListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return QStringLiteral("Domain");
        case UnknownColumn:
            return QStringLiteral("? Unkn.");
        case AbsentColumn:
            return QStringLiteral("! Abs.");
        case ScheduledColumn:
            return QStringLiteral("\u2713 Sched.");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && section != NameColumn)
        return verdictMeaning(section == UnknownColumn  ? Verdict::Unknown
                              : section == AbsentColumn ? Verdict::Absent
                                                        : Verdict::Scheduled);
    return {};
}

void DomainListModel::setReport(const RunReport &report)
{
    QList<Entry> fresh;
    Entry all;
    for (const DomainReport &d : report.domains) {
        Entry e;
        e.name = d.name;
        const VerdictCounts n = d.counts();
        e.unknown = n.unknown;
        e.absent = n.absent;
        e.scheduled = n.scheduled;
        if (d.candidateError)
            e.candidateError = redactSecrets(*d.candidateError);
        if (d.scan.error)
            e.scanError = redactSecrets(*d.scan.error);
        all.unknown += e.unknown;
        all.absent += e.absent;
        all.scheduled += e.scheduled;
        all.unreadable += e.candidateError ? 1 : 0;
        fresh << e;
    }
    fresh.prepend(all);

    const bool sameDomains =
        fresh.size() == m_entries.size() &&
        std::equal(fresh.cbegin(), fresh.cend(), m_entries.cbegin(),
                   [](const Entry &a, const Entry &b) { return a.name == b.name; });
    if (!sameDomains) {
        beginResetModel();
        m_entries = fresh;
        endResetModel();
        return;
    }
    for (qsizetype i = 0; i < fresh.size(); ++i) {
        if (fresh.at(i) == m_entries.at(i))
            continue;
        m_entries[i] = fresh.at(i);
        emit dataChanged(index(static_cast<int>(i), 0),
                         index(static_cast<int>(i), ColumnCount - 1));
    }
}

} // namespace reclaim::ui
