#include "actionsmodel.h"

#include "config/connectionurl.h"
#include "releaseoffuithread.h"
#include "verdictstyle.h"

#include <QFont>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace reclaim::ui {

ActionsModel::ActionsModel(QObject *parent) : QAbstractTableModel(parent) {}

int ActionsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int ActionsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString compactPreconditionText(const Precondition &p, bool wholeSeconds)
{
    // PostgreSQL's text form: "2026-12-01 23:57:16.608" (maybe with a zone); anything else is
    // shown whole.
    static const QRegularExpression dateTime(
        QStringLiteral("^\\d{4}-\\d{2}-\\d{2}[ T](\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?)"));
    const QRegularExpressionMatch m = dateTime.match(p.updatedAtText);
    QString time = m.hasMatch() ? m.captured(1) : p.updatedAtText;
    if (m.hasMatch() && wholeSeconds)
        time = time.left(8);
    return QStringLiteral("%1 \u00b7 %2").arg(p.status, time);
}

QString preconditionText(const Precondition &p)
{
    return QStringLiteral("status %1, updatedAt %2, generation %3")
        .arg(p.status, p.updatedAtText)
        .arg(p.generation);
}

QString actionDetailText(const Action &a)
{
    if (a.result == ActionResult::Pending) {
        // What holds it comes first: a guard's reason is what the operator must read first.
        const QString held =
            a.heldReason.isEmpty() ? QString() : QStringLiteral("held: %1 — ").arg(a.heldReason);
        if (a.kind == ActionKind::Requeue)
            return held +
                   QStringLiteral("enqueue %1 as %2 on %3%4; %5")
                       .arg(a.jobName, a.jobId, a.queue,
                            a.jobOptions.isEmpty()
                                ? QString()
                                : QStringLiteral(" with %1").arg(QString::fromUtf8(a.jobOptions)),
                            a.reason);
        return held + a.reason;
    }
    QString text = redactSecrets(a.resultDetail);
    if (a.parent.attempted) {
        const QString parent =
            a.parent.rows > 0
                ? QStringLiteral("parent %1.%2 set to %3")
                      .arg(a.parent.table, a.parent.column, a.parent.newValue)
                : QStringLiteral("parent %1.%2 left alone").arg(a.parent.table, a.parent.column);
        text = text.isEmpty() ? parent : text + QStringLiteral("; ") + parent;
    }
    return text.isEmpty() ? actionResultMeaning(a.result) : text;
}

namespace {

QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

} // namespace

QVariant ActionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries.at(index.row());
    const Action &a = *e.action;
    switch (role) {
    case KeyRole:
        return a.id;
    case ResultRole:
        return static_cast<int>(a.result);
    case ApprovingRole:
        return e.approving;
    case RecordingRole:
        return e.recording;
    default:
        break;
    }
    const int column = index.column();
    const bool pending = a.result == ActionResult::Pending && !e.approving;
    const bool held = pending && !m_hold.isEmpty() && !m_readOnly;
    if (role == Qt::DisplayRole) {
        switch (column) {
        case ResultColumn:
            if (e.approving)
                return QStringLiteral("running\u2026");
            if (e.recording)
                return a.result == ActionResult::Rejected ? QStringLiteral("undoing\u2026")
                                                          : QStringLiteral("rejecting\u2026");
            if (a.result == ActionResult::Rejected && !a.rejectedBy.isEmpty())
                // The column is narrow: the operator's name; who@where is in the tooltip.
                return QStringLiteral("rejected by %1").arg(a.rejectedBy.section(u'@', 0, 0));
            if (m_readOnly && pending)
                return QStringLiteral("planned");
            if (held)
                return QStringLiteral("on hold");
            return actionResultShortText(a.result);
        case KindColumn:
            return actionKindName(a.kind);
        case JobColumn:
            return a.id;
        case PreconditionColumn:
            return compactPreconditionText(a.precondition, m_wholeSeconds);
        case DetailColumn:
            return actionDetailText(a);
        case TimeColumn:
            return hhmmss(a.executedAt.isValid() ? a.executedAt : e.plannedAt);
        default:
            return {};
        }
    }
    if (role == Qt::DecorationRole && column == ResultColumn)
        return e.approving ? runningIcon() : (held ? heldIcon() : actionResultIcon(a.result));
    if (role == Qt::ForegroundRole) {
        if (held)
            return staleColor();
        if (column == ResultColumn)
            return actionResultColor(a.result);
        return {};
    }
    if (role == Qt::FontRole && column == KindColumn) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case ResultColumn: {
            if (e.approving)
                return QStringLiteral("Running: re-checking under the lock, then executing.");
            if (m_readOnly && pending)
                return QStringLiteral("Planned, not run: this console is read-only.");
            if (held)
                return m_hold;
            const QString when = a.executedAt.isValid()
                                     ? QStringLiteral("ran at %1").arg(hhmmss(a.executedAt))
                                     : QStringLiteral("planned at %1").arg(hhmmss(e.plannedAt));
            return QStringLiteral("%1 (%2): %3")
                .arg(actionOutcomeText(a), when, actionResultMeaning(a.result));
        }
        case DetailColumn:
            return actionDetailText(a);
        case JobColumn:
            return a.jobType.isEmpty() ? a.id : QStringLiteral("%1, type %2").arg(a.id, a.jobType);
        case TimeColumn:
            return a.executedAt.isValid() ? QStringLiteral("ran at this time")
                                          : QStringLiteral("planned at this time");
        case PreconditionColumn:
            return QStringLiteral(
                       "The write happens only where the row still has status %1 and updatedAt %2, "
                       "and generation %3 is still the newest run")
                .arg(a.precondition.status, a.precondition.updatedAtText)
                .arg(a.precondition.generation);
        default:
            return {};
        }
    }
    return {};
}

QVariant ActionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole && section == PreconditionColumn)
        return QStringLiteral("What the conditional write checks: the row's status and the time of "
                              "its updatedAt (date and generation in each cell's tooltip)");
    if (role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Result",       "Action", "Job",
                                        "Precondition", "Time",   "Detail"};
    return QString::fromLatin1(names[section]);
}

void ActionsModel::rebuildIndex()
{
    m_index.clear();
    for (qsizetype i = 0; i < m_entries.size(); ++i)
        m_index.insert(m_entries.at(i).action->id, static_cast<int>(i));
}

void ActionsModel::emitRowChanged(int row)
{
    m_widthSamples.reset();
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void ActionsModel::setReport(const RunReport &report)
{
    setPlan(planActions(report), report.finishedAt);
}

bool ActionsModel::samePendingRows(const PlannedActions &plan) const
{
    if (plan.entries.size() != m_entries.size())
        return false;
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        const Action &a = *m_entries.at(i).action;
        if (a.result != ActionResult::Pending || a.id != plan.entries.at(i).action->id)
            return false;
    }
    return true;
}

void ActionsModel::setPlan(const PlannedActions &plan, const QDateTime &finishedAt)
{
    const QDateTime plannedAt = finishedAt.isValid() ? finishedAt : QDateTime::currentDateTimeUtc();
    // Kept until the next plan, then freed off this thread (the caller's copy is not the last).
    releaseOffUiThread(std::exchange(m_plan, plan));
    m_widthSamples.reset();

    // Nothing shown yet: the plan goes in whole, with the index built off the UI thread.
    if (m_entries.isEmpty()) {
        if (plan.entries.isEmpty())
            return;
        beginResetModel();
        m_entries = plan.entries; // shared until a row changes
        m_index = plan.index;
        if (plan.entries.constFirst().plannedAt == plannedAt)
            m_widthSamples = plan.widthSamples;
        else
            for (Entry &e : m_entries)
                e.plannedAt = plannedAt;
        endResetModel();
        return;
    }
    // The same actions planned again, row for row (a refresh during an incident): each takes
    // the new plan in place, one notification for all, and the selection stays where it was.
    if (samePendingRows(plan)) {
        QList<Entry> next = plan.entries; // shared: no row is copied unless one is kept below
        bool kept = false;
        for (qsizetype i = 0; i < m_entries.size(); ++i) {
            const Entry &e = m_entries.at(i);
            if (e.approving || e.recording) {
                next[i] = e; // its result is on the way; that is what the operator needs to see
                kept = true;
            }
        }
        const bool planTime = plan.entries.constFirst().plannedAt == plannedAt;
        if (!planTime)
            for (Entry &e : next)
                e.plannedAt = plannedAt;
        // The previous plan's rows are freed off this thread: 200,000 of them take tens of ms.
        releaseOffUiThread(std::exchange(m_entries, std::move(next)));
        releaseOffUiThread(std::exchange(m_index, plan.index));
        if (!kept && planTime)
            m_widthSamples = plan.widthSamples;
        emit dataChanged(index(0, 0),
                         index(static_cast<int>(m_entries.size()) - 1, ColumnCount - 1));
        return;
    }

    // What was pending and is no longer planned goes; finished actions stay as history.
    for (qsizetype i = m_entries.size() - 1; i >= 0; --i) {
        const Entry &e = m_entries.at(i);
        if (e.action->result == ActionResult::Pending && !e.approving && !e.recording &&
            !plan.index.contains(e.action->id)) {
            beginRemoveRows({}, static_cast<int>(i), static_cast<int>(i));
            m_entries.removeAt(i);
            endRemoveRows();
        }
    }
    rebuildIndex();

    QList<Entry> appended;
    // One dataChanged for the span of re-planned rows, not one per row: a report re-plans
    // thousands at once, and every notification makes the views re-measure their columns.
    int firstChanged = -1;
    int lastChanged = -1;
    for (const ActionEntry &p : plan.entries) {
        const std::shared_ptr<const Action> &planned = p.action;
        const Action &a = *planned;
        const int row = m_index.value(a.id, -1);
        if (row < 0) {
            appended << Entry{planned, plannedAt};
            continue;
        }
        Entry &e = m_entries[row];
        if (e.approving || e.recording)
            continue; // its result is on the way; that is what the operator needs to see
        if (e.action->result == ActionResult::Rejected && a.result == ActionResult::Rejected &&
            e.action->rejectedBy == a.rejectedBy && e.action->executedAt == a.executedAt) {
            // The same rejection, seen again by this run: one row, not one per run.
            e.action = planned;
            emitRowChanged(row);
            continue;
        }
        if (e.action->result != ActionResult::Pending) {
            // Planned again after it ran (e.g. it came back stale): keep what happened as
            // history and list the new plan after it; lookups by id find the newest.
            appended << Entry{planned, plannedAt};
            continue;
        }
        e.action = planned;
        e.plannedAt = plannedAt;
        firstChanged = firstChanged < 0 ? row : std::min(firstChanged, row);
        lastChanged = std::max(lastChanged, row);
    }
    if (firstChanged >= 0)
        emit dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
    if (!appended.isEmpty()) {
        const int first = static_cast<int>(m_entries.size());
        beginInsertRows({}, first, first + static_cast<int>(appended.size()) - 1);
        m_entries << appended;
        rebuildIndex();
        endInsertRows();
    }
}

void ActionsModel::updateAction(const Action &action)
{
    const int row = m_index.value(action.id, -1);
    if (row < 0) {
        m_widthSamples.reset();
        beginInsertRows({}, static_cast<int>(m_entries.size()), static_cast<int>(m_entries.size()));
        m_entries << Entry{std::make_shared<const Action>(action), QDateTime::currentDateTimeUtc()};
        rebuildIndex();
        endInsertRows();
        return;
    }
    m_entries[row].action = std::make_shared<const Action>(action);
    m_entries[row].approving = false;
    m_entries[row].recording = false;
    emitRowChanged(row);
}

void ActionsModel::setApproving(const QString &key, bool approving)
{
    const int row = m_index.value(key, -1);
    if (row < 0 || m_entries.at(row).approving == approving)
        return;
    m_entries[row].approving = approving;
    emitRowChanged(row);
}

void ActionsModel::setRecording(const QString &key, bool recording)
{
    const int row = m_index.value(key, -1);
    if (row < 0 || m_entries.at(row).recording == recording)
        return;
    m_entries[row].recording = recording;
    emitRowChanged(row);
}

bool ActionsModel::isRecording(const QString &key) const
{
    const int row = m_index.value(key, -1);
    return row >= 0 && m_entries.at(row).recording;
}

void ActionsModel::setHold(const QString &why)
{
    if (why == m_hold)
        return;
    m_hold = why;
    if (!m_entries.isEmpty())
        emit dataChanged(index(0, 0),
                         index(static_cast<int>(m_entries.size()) - 1, ColumnCount - 1));
}

void ActionsModel::setWholeSeconds(bool wholeSeconds)
{
    if (wholeSeconds == m_wholeSeconds)
        return;
    m_wholeSeconds = wholeSeconds;
    if (!m_entries.isEmpty())
        emit dataChanged(index(0, PreconditionColumn),
                         index(static_cast<int>(m_entries.size()) - 1, PreconditionColumn));
}

QList<int> ActionsModel::widthSampleRows(int column) const
{
    if (column < 0 || column >= ColumnCount)
        return {};
    if (!m_widthSamples)
        m_widthSamples = widthSamplesOf(m_entries);
    return (*m_widthSamples)[column];
}

const Action *ActionsModel::actionFor(const QString &key) const
{
    const int row = m_index.value(key, -1);
    return row < 0 ? nullptr : m_entries.at(row).action.get();
}

bool ActionsModel::isApproving(const QString &key) const
{
    const int row = m_index.value(key, -1);
    return row >= 0 && m_entries.at(row).approving;
}

int ActionsModel::pendingCount() const
{
    int n = 0;
    for (const Entry &e : m_entries)
        n += e.action->result == ActionResult::Pending ? 1 : 0;
    return n;
}

} // namespace reclaim::ui
