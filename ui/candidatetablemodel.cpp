#include "candidatetablemodel.h"

#include "config/connectionurl.h"
#include "verdictstyle.h"

#include <QFont>
#include <algorithm>

namespace reclaim::ui {

namespace {

bool sameSighting(const Sighting &a, const Sighting &b)
{
    return a.queue == b.queue && a.jobId == b.jobId && a.how == b.how && a.state == b.state &&
           a.error == b.error && a.lockTtlMs == b.lockTtlMs && a.attempts == b.attempts &&
           a.failedReason == b.failedReason && a.processedOn == b.processedOn &&
           a.finishedOn == b.finishedOn;
}

bool sameAction(const std::optional<Action> &a, const std::optional<Action> &b)
{
    if (a.has_value() != b.has_value())
        return false;
    if (!a)
        return true;
    return a->kind == b->kind && a->result == b->result && a->resultDetail == b->resultDetail &&
           a->reason == b->reason && a->payload == b->payload &&
           a->precondition.generation == b->precondition.generation &&
           a->precondition.updatedAtText == b->precondition.updatedAtText;
}

bool sameForDisplay(const CandidateTableModel::Row &a, const CandidateTableModel::Row &b)
{
    const Candidate &ca = a.verdict.candidate;
    const Candidate &cb = b.verdict.candidate;
    if (a.verdict.verdict != b.verdict.verdict || a.summary != b.summary ||
        ca.status != cb.status || ca.updatedAtText != cb.updatedAtText || ca.type != cb.type ||
        ca.rowJson != cb.rowJson || !sameAction(a.action, b.action) ||
        a.verdict.evidence.size() != b.verdict.evidence.size())
        return false;
    for (qsizetype i = 0; i < a.verdict.evidence.size(); ++i)
        if (!sameSighting(a.verdict.evidence.at(i), b.verdict.evidence.at(i)))
            return false;
    return true;
}

QString searchTextOf(const CandidateTableModel::Row &r)
{
    const Candidate &c = r.verdict.candidate;
    return QStringList{c.domain,
                       c.id,
                       c.type,
                       c.status,
                       verdictName(r.verdict.verdict),
                       r.summary,
                       CandidateTableModel::plannedText(r)}
        .join(QLatin1Char('\n'))
        .toLower();
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

QString CandidateTableModel::keyOf(const QString &domain, const QString &rowId)
{
    return domain + QLatin1Char('/') + rowId;
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

QString CandidateTableModel::plannedText(const Row &row)
{
    if (!row.action) {
        switch (row.verdict.verdict) {
        case Verdict::Unknown:
            return QStringLiteral("none: looks again next run");
        case Verdict::Scheduled:
            return QStringLiteral("none");
        case Verdict::Absent:
            return QStringLiteral("none planned");
        }
    }
    const Action &a = *row.action;
    QString text = a.kind == ActionKind::Requeue ? QStringLiteral("REQUEUE to %1").arg(a.queue)
                                                 : QStringLiteral("FAIL the row");
    if (a.kind == ActionKind::Requeue && a.queue.isEmpty())
        text = QStringLiteral("REQUEUE");
    if (row.approving)
        return text + QStringLiteral(": running\u2026");
    if (a.result != ActionResult::Pending)
        text += QStringLiteral(": ") + actionResultText(a.result);
    return text;
}

qint64 CandidateTableModel::ageSeconds(const Row &row) const
{
    const QDateTime &at = row.verdict.candidate.updatedAt;
    return at.isValid() && m_now.isValid() ? at.secsTo(m_now) : -1;
}

QVariant CandidateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    const Candidate &c = r.verdict.candidate;
    const Verdict v = r.verdict.verdict;
    switch (role) {
    case KeyRole:
        return keyOf(c.domain, c.id);
    case VerdictRole:
        return static_cast<int>(v);
    case DomainRole:
        return c.domain;
    case SearchTextRole:
        return r.searchText;
    case AgeSecondsRole:
        return ageSeconds(r);
    default:
        break;
    }
    const int column = index.column();
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (column) {
        case VerdictColumn:
            return role == SortRole ? QVariant(verdictSeverity(v)) : QVariant(verdictName(v));
        case DomainColumn:
            return c.domain;
        case IdColumn:
            return c.id;
        case TypeColumn:
            return c.type.isEmpty() ? QStringLiteral("-") : c.type;
        case StatusColumn:
            return c.status;
        case AgeColumn:
            return role == SortRole ? QVariant(ageSeconds(r)) : QVariant(formatAge(ageSeconds(r)));
        case EvidenceColumn:
            return r.summary;
        case ActionColumn:
            return plannedText(r);
        default:
            return {};
        }
    }
    if (role == Qt::DecorationRole) {
        if (column == VerdictColumn)
            return verdictIcon(v);
        if (column == ActionColumn && r.action)
            return r.approving ? runningIcon() : actionResultIcon(r.action->result);
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (column == VerdictColumn)
            return verdictColor(v);
        if (column == ActionColumn && r.action)
            return actionResultColor(r.action->result);
        return {};
    }
    if (role == Qt::FontRole && column == VerdictColumn) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case VerdictColumn:
            return verdictMeaning(v);
        case EvidenceColumn:
            return r.summary;
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
        static const char *const names[] = {"Verdict",   "Domain", "Job id",   "Type",
                                            "DB status", "Age",    "Evidence", "Planned action"};
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
        m_index.insert(
            keyOf(m_rows.at(i).verdict.candidate.domain, m_rows.at(i).verdict.candidate.id),
            static_cast<int>(i));
}

void CandidateTableModel::emitRowChanged(int first, int last)
{
    emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

void CandidateTableModel::setReport(const RunReport &report)
{
    QHash<QString, Action> actions;
    for (const Action &a : report.actions)
        actions.insert(a.id, a);

    QList<Row> incoming;
    QHash<QString, int> incomingIndex;
    for (const DomainReport &d : report.domains) {
        for (const CandidateVerdict &c : d.candidates) {
            Row r;
            r.verdict = c;
            r.summary = redactSecrets(c.summary());
            if (r.verdict.candidate.domain.isEmpty())
                r.verdict.candidate.domain = d.name;
            const QString key = keyOf(r.verdict.candidate.domain, c.candidate.id);
            if (const auto it = actions.constFind(key); it != actions.cend())
                r.action = *it;
            r.searchText = searchTextOf(r);
            incomingIndex.insert(key, static_cast<int>(incoming.size()));
            incoming << r;
        }
    }
    const QDateTime previousNow = m_now;
    m_now = report.finishedAt.isValid() ? report.finishedAt : QDateTime::currentDateTimeUtc();

    MergeStats stats;
    QList<int> gone;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        const Candidate &c = m_rows.at(i).verdict.candidate;
        if (!incomingIndex.contains(keyOf(c.domain, c.id)))
            gone << static_cast<int>(i);
    }
    for (auto it = incomingIndex.cbegin(); it != incomingIndex.cend(); ++it)
        stats.inserted += m_index.contains(it.key()) ? 0 : 1;
    stats.removed = static_cast<int>(gone.size());

    // When most rows came or went, one reset is cheaper for the views than thousands of
    // insert/remove notifications, and there is little selection left to keep.
    const bool mostChanged =
        !m_rows.isEmpty() && (stats.removed * 2 > m_rows.size() ||
                              (!incoming.isEmpty() && stats.inserted * 2 > incoming.size()));
    if (mostChanged) {
        for (Row &r : incoming)
            if (const Row *old =
                    rowForKey(keyOf(r.verdict.candidate.domain, r.verdict.candidate.id)))
                r.approving = old->approving;
        beginResetModel();
        m_rows = std::move(incoming);
        rebuildIndex();
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
    rebuildIndex();

    // Update the rows both lists share; announce contiguous ranges of changed rows at once.
    int rangeStart = -1;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        Row &old = m_rows[i];
        const Row &fresh = incoming.at(
            incomingIndex.value(keyOf(old.verdict.candidate.domain, old.verdict.candidate.id)));
        const bool changed = !sameForDisplay(old, fresh);
        if (changed) {
            const bool approving = old.approving;
            old = fresh;
            old.approving = approving;
            ++stats.changed;
            if (rangeStart < 0)
                rangeStart = static_cast<int>(i);
        } else if (rangeStart >= 0) {
            emitRowChanged(rangeStart, static_cast<int>(i) - 1);
            rangeStart = -1;
        }
    }
    if (rangeStart >= 0)
        emitRowChanged(rangeStart, static_cast<int>(m_rows.size()) - 1);
    // Every age moved with the clock: one notification for the whole column.
    if (previousNow != m_now && !m_rows.isEmpty())
        emit dataChanged(index(0, AgeColumn),
                         index(static_cast<int>(m_rows.size()) - 1, AgeColumn));

    // Append the new rows in one go.
    if (stats.inserted > 0) {
        const int first = static_cast<int>(m_rows.size());
        beginInsertRows({}, first, first + stats.inserted - 1);
        for (const Row &r : std::as_const(incoming))
            if (!m_index.contains(keyOf(r.verdict.candidate.domain, r.verdict.candidate.id)))
                m_rows << r;
        rebuildIndex();
        endInsertRows();
    }
    m_lastMerge = stats;
}

void CandidateTableModel::updateAction(const Action &action)
{
    const int row = indexOfKey(action.id);
    if (row < 0)
        return;
    Row &r = m_rows[row];
    r.action = action;
    r.approving = false;
    r.searchText = searchTextOf(r);
    emitRowChanged(row, row);
}

void CandidateTableModel::setApproving(const QString &key, bool approving)
{
    const int row = indexOfKey(key);
    if (row < 0 || m_rows.at(row).approving == approving)
        return;
    m_rows[row].approving = approving;
    emitRowChanged(row, row);
}

void CandidateTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_index.clear();
    endResetModel();
}

} // namespace reclaim::ui
