#include "candidatetablemodel.h"

#include "releaseoffuithread.h"
#include "verdictstyle.h"

#include <QFont>
#include <QHash>
#include <algorithm>

namespace reclaim::ui {

namespace {

// The verdict's icon greyed out: the shape still tells the verdict, the grey that it is old.
QIcon staleVerdictIcon(Verdict v)
{
    static QHash<int, QIcon> cache;
    auto it = cache.find(static_cast<int>(v));
    if (it == cache.end()) {
        QIcon grey;
        for (const int size : {16, 32})
            grey.addPixmap(verdictIcon(v).pixmap(size, size, QIcon::Disabled));
        it = cache.insert(static_cast<int>(v), grey);
    }
    return *it;
}

} // namespace

CandidateTableModel::CandidateTableModel(QObject *parent) : QAbstractTableModel(parent) {}

int CandidateTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CandidateTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CandidateTableModel::formatAge(qint64 seconds)
{
    if (seconds < 0)
        return QStringLiteral("-");
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1 min").arg(seconds / 60);
    if (seconds < 86400)
        return QStringLiteral("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
    return QStringLiteral("%1 d %2 h").arg(seconds / 86400).arg((seconds % 86400) / 3600);
}

qint64 CandidateTableModel::ageSeconds(const Row &row) const
{
    return ageSecondsOf(row, m_nowSecs);
}

QVariant CandidateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    const Candidate &c = r.verdict->candidate;
    const Verdict v = r.verdict->verdict;
    switch (role) {
    case KeyRole:
        return r.key;
    case VerdictRole:
        return static_cast<int>(v);
    case DomainRole:
        return c.domain;
    case SearchTextRole:
        return r.searchText();
    case AgeSecondsRole:
        return ageSeconds(r);
    default:
        break;
    }
    const int column = index.column();
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (column) {
        case VerdictColumn:
            if (role == SortRole)
                return verdictSeverity(v);
            return m_stale ? QStringLiteral("%1 \u00b7 stale").arg(verdictName(v)) : verdictName(v);
        case DomainColumn:
            return c.domain;
        case IdColumn:
            return c.id;
        case TypeColumn:
            return typeTextOf(c);
        case StatusColumn:
            return c.status;
        case AgeColumn:
            return role == SortRole ? QVariant(ageSeconds(r)) : QVariant(formatAge(ageSeconds(r)));
        case EvidenceColumn:
            return r.summary();
        case ActionColumn:
            return r.planned;
        default:
            return {};
        }
    }
    if (role == Qt::DecorationRole) {
        if (column == VerdictColumn)
            return m_stale ? staleVerdictIcon(v) : verdictIcon(v);
        if (column == ActionColumn && r.action)
            return r.approving ? runningIcon() : actionResultIcon(r.action->result);
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (m_stale)
            return staleColor();
        if (column == VerdictColumn)
            return verdictColor(v);
        if (column == ActionColumn && r.action)
            return actionResultColor(r.action->result);
        return {};
    }
    if (role == Qt::FontRole && (column == VerdictColumn || m_stale)) {
        QFont f;
        f.setBold(column == VerdictColumn);
        f.setItalic(m_stale);
        return f;
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case VerdictColumn:
            return m_stale ? m_staleWhy + QLatin1Char('\n') + verdictMeaning(v) : verdictMeaning(v);
        case EvidenceColumn:
            return r.summary();
        case DomainColumn: // a narrow column may elide these: the tooltip has them whole
            return c.domain;
        case IdColumn:
            return c.id;
        case TypeColumn:
            return typeTextOf(c);
        case AgeColumn:
            return QStringLiteral("updatedAt %1, as of the run at %2")
                .arg(c.updatedAtText, m_now.toLocalTime().toString(QStringLiteral("HH:mm:ss")));
        case ActionColumn:
            if (r.action)
                return r.action->result == ActionResult::Pending
                           ? r.action->reason
                           : QStringLiteral("%1: %2").arg(actionResultMeaning(r.action->result),
                                                          r.action->resultDetail);
            return {};
        default:
            return {};
        }
    }
    return {};
}

QVariant CandidateTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Verdict",   "Domain", "Job id",         "Type",
                                            "DB status", "Age",    "Planned action", "Evidence"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole && section == AgeColumn)
        return QStringLiteral("Time since the row's updatedAt, as of the last run");
    return {};
}

const CandidateTableModel::Row *CandidateTableModel::rowAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows.at(row) : nullptr;
}

int CandidateTableModel::indexOfKey(const QString &key) const
{
    return m_index.value(key, -1);
}

const CandidateTableModel::Row *CandidateTableModel::rowForKey(const QString &key) const
{
    return rowAt(indexOfKey(key));
}

void CandidateTableModel::rebuildIndex()
{
    m_index.clear();
    m_index.reserve(m_rows.size());
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        m_index.insert(m_rows.at(i).key, static_cast<int>(i));
}

void CandidateTableModel::emitRowChanged(int first, int last)
{
    emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

void CandidateTableModel::setReport(const RunReport &report)
{
    setRows(buildCandidateRows(report));
}

void CandidateTableModel::sort(int column, Qt::SortOrder order)
{
    const CandidateOrder wanted{column, order};
    if (column < 0 || column >= ColumnCount || wanted == m_order)
        return;
    CandidateRows sorted;
    sorted.rows = m_rows;
    sorted.now = m_now;
    sortCandidateRows(sorted, wanted);
    m_order = wanted;
    reorderTo(sorted.rows, sorted.index);
}

void CandidateTableModel::reorderTo(const QList<CandidateRow> &placed,
                                    const QHash<QString, int> &placedIndex)
{
    // Already in place (a refresh that moved nothing): no layout change for the views to redo.
    bool same = placed.size() == m_rows.size();
    for (qsizetype i = 0; same && i < m_rows.size(); ++i)
        same = m_rows.at(i).key == placed.at(i).key;
    if (same)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList from = persistentIndexList();
    QStringList keys;
    keys.reserve(from.size());
    for (const QModelIndex &i : from)
        keys << m_rows.at(i.row()).key;
    QList<Row> moved;
    moved.reserve(placed.size());
    for (const Row &p : placed)
        moved.append(std::move(m_rows[m_index.value(p.key)]));
    m_rows = std::move(moved);
    m_index = placedIndex;
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype i = 0; i < from.size(); ++i)
        to << index(m_index.value(keys.at(i)), from.at(i).column());
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void CandidateTableModel::setRows(CandidateRows incoming)
{
    if (incoming.order != m_order)
        sortCandidateRows(incoming, m_order); // built before the operator picked another column
    const std::optional<qint64> previousNow = m_nowSecs;
    m_now = incoming.now;
    m_nowSecs = m_now.isValid() ? std::optional(m_now.toSecsSinceEpoch()) : std::nullopt;

    MergeStats stats;
    // The same rows in the same order (a refresh during an incident sees the same orphans again):
    // row i is row i, so no row needs to be looked up by key, which at 200,000 rows is most of
    // what a merge costs.
    bool sameKeys = incoming.rows.size() == m_rows.size();
    for (qsizetype i = 0; sameKeys && i < m_rows.size(); ++i)
        sameKeys = m_rows.at(i).key == incoming.rows.at(i).key;
    QList<int> gone;
    if (!sameKeys) {
        for (qsizetype i = 0; i < m_rows.size(); ++i)
            if (!incoming.index.contains(m_rows.at(i).key))
                gone << static_cast<int>(i);
        for (auto it = incoming.index.cbegin(); it != incoming.index.cend(); ++it)
            stats.inserted += m_index.contains(it.key()) ? 0 : 1;
    }
    stats.removed = static_cast<int>(gone.size());

    // When most rows came or went, one reset is cheaper for the views than thousands of
    // insert/remove notifications, and there is little selection left to keep. Into an empty
    // table a reset is the cheapest way in: the rows are swapped in as built.
    const bool mostChanged =
        m_rows.isEmpty()
            ? !incoming.rows.isEmpty()
            : (stats.removed * 2 > m_rows.size() ||
               (!incoming.rows.isEmpty() && stats.inserted * 2 > incoming.rows.size()));
    if (mostChanged) {
        for (const Row &old : std::as_const(m_rows)) {
            if (!old.approving)
                continue;
            if (const int at = incoming.index.value(old.key, -1); at >= 0) {
                Row &r = incoming.rows[at];
                r.approving = true;
                r.refreshPlanned();
                r.displayHash = 0;
            }
        }
        beginResetModel();
        releaseOffUiThread(std::exchange(m_report, std::move(incoming.report)));
        releaseOffUiThread(std::exchange(m_rows, std::move(incoming.rows)));
        releaseOffUiThread(std::exchange(m_index, std::move(incoming.index)));
        endResetModel();
        stats.reset = true;
        m_lastMerge = stats;
        return;
    }

    // Remove vanished rows, one contiguous range at a time, from the back.
    for (qsizetype i = gone.size() - 1; i >= 0;) {
        const int last = gone.at(i);
        int first = last;
        while (i > 0 && gone.at(i - 1) == first - 1)
            first = gone.at(--i);
        --i;
        beginRemoveRows({}, first, last);
        m_rows.remove(first, last - first + 1);
        endRemoveRows();
    }
    if (!gone.isEmpty())
        rebuildIndex();

    // Every row both lists share takes the fresh report's candidate and plan, so the old report
    // can go; only the rows whose display changed are announced, contiguous ranges at once.
    int rangeStart = -1;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        Row &old = m_rows[i];
        const Row &fresh = incoming.rows.at(sameKeys ? i : incoming.index.value(old.key));
        // Both hashes known: they decide (64 bits; a row the UI changed has none).
        const bool same = old.displayHash != 0 && fresh.displayHash != 0
                              ? old.displayHash == fresh.displayHash
                              : showsTheSame(old, fresh);
        if (same) {
            old.verdict = fresh.verdict;
            old.action = fresh.action;
            if (rangeStart >= 0) {
                emitRowChanged(rangeStart, static_cast<int>(i) - 1);
                rangeStart = -1;
            }
            continue;
        }
        const bool approving = old.approving;
        old = fresh;
        if (approving) {
            old.approving = true;
            old.refreshPlanned();
            old.displayHash = 0;
        }
        ++stats.changed;
        if (rangeStart < 0)
            rangeStart = static_cast<int>(i);
    }
    if (rangeStart >= 0)
        emitRowChanged(rangeStart, static_cast<int>(m_rows.size()) - 1);
    // Every age moved with the clock: one notification for the whole column, naming the roles
    // that moved, so the filter (which no age affects) is not asked again for every row.
    if (previousNow != m_nowSecs && !m_rows.isEmpty())
        emit dataChanged(index(0, AgeColumn), index(static_cast<int>(m_rows.size()) - 1, AgeColumn),
                         {Qt::DisplayRole, Qt::ToolTipRole, SortRole, AgeSecondsRole});

    // Append the new rows in one go, then move every row to where the new order puts it.
    if (stats.inserted > 0) {
        const int first = static_cast<int>(m_rows.size());
        beginInsertRows({}, first, first + stats.inserted - 1);
        for (const Row &r : std::as_const(incoming.rows))
            if (!m_index.contains(r.key))
                m_rows << r;
        rebuildIndex();
        endInsertRows();
    }
    if (sameKeys) // the same keys at the same positions
        releaseOffUiThread(std::exchange(m_index, std::move(incoming.index)));
    else
        reorderTo(incoming.rows, incoming.index);
    releaseOffUiThread(std::exchange(m_report, std::move(incoming.report)));
    releaseOffUiThread(std::move(incoming)); // what the rows replaced, freed off this thread
    m_lastMerge = stats;
}

void CandidateTableModel::updateAction(const Action &action)
{
    const int row = indexOfKey(action.id);
    if (row < 0)
        return;
    Row &r = m_rows[row];
    r.action = std::make_shared<const Action>(action);
    r.approving = false;
    r.refreshPlanned();
    r.displayHash = 0; // shows what no report built
    emitRowChanged(row, row);
}

void CandidateTableModel::setApproving(const QString &key, bool approving)
{
    const int row = indexOfKey(key);
    if (row < 0 || m_rows.at(row).approving == approving)
        return;
    m_rows[row].approving = approving;
    m_rows[row].refreshPlanned();
    m_rows[row].displayHash = 0;
    emitRowChanged(row, row);
}

void CandidateTableModel::setStale(bool stale, const QString &why)
{
    if (stale == m_stale && why == m_staleWhy)
        return;
    m_stale = stale;
    m_staleWhy = why;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
}

void CandidateTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_index.clear();
    m_report.reset();
    endResetModel();
}

} // namespace reclaim::ui
