#include "heldactionsmodel.h"

#include "actionsmodel.h"
#include "verdictstyle.h"

#include <QBrush>
#include <QFont>
#include <QLocale>
#include <QMap>
#include <QSet>
#include <algorithm>

namespace reclaim::ui {

namespace {

QString sinceText(const QDateTime &t)
{
    if (!t.isValid())
        return {};
    const qint64 s = std::max<qint64>(0, t.secsTo(QDateTime::currentDateTimeUtc()));
    const QString time = t.toLocalTime().toString(QStringLiteral("HH:mm"));
    if (s < 60)
        return QStringLiteral("%1 (just now)").arg(time);
    if (s < 3600)
        return QStringLiteral("%1 (%2 min ago)").arg(time).arg(s / 60);
    if (s < 48 * 3600)
        return QStringLiteral("%1 (%2 h ago)").arg(time).arg(s / 3600);
    return t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

QColor outcomeColor(HeldDecision::Outcome o)
{
    switch (o) {
    case HeldDecision::Outcome::Executed:
        return actionResultColor(ActionResult::Applied);
    case HeldDecision::Outcome::Rejected:
        return actionResultColor(ActionResult::Rejected);
    case HeldDecision::Outcome::Superseded:
    case HeldDecision::Outcome::AlreadyTaken:
        return actionResultColor(ActionResult::Dropped);
    case HeldDecision::Outcome::HeldAgain:
    case HeldDecision::Outcome::NoSuchAction:
    case HeldDecision::Outcome::StoreFailed:
        return actionResultColor(ActionResult::Error);
    }
    return {};
}

} // namespace

QString heldLimitText(const QString &limit)
{
    if (limit == QLatin1String("no-trace"))
        return QStringLiteral("a queue has no trace in Redis");
    if (limit == QLatin1String("trace-unchecked"))
        return QStringLiteral("could not check the queues' trace in Redis");
    if (limit == QLatin1String("max-actions"))
        return QStringLiteral("more actions than run.guard.maxActions");
    if (limit == QLatin1String("absent-share"))
        return QStringLiteral("ABSENT share above run.guard.maxAbsentShare");
    if (limit == QLatin1String("policy"))
        return QStringLiteral("policy: approve");
    return limit;
}

QString heldKindsText(int requeues, int fails)
{
    const QLocale l;
    QStringList parts;
    if (requeues > 0)
        parts << QStringLiteral("%1 requeue").arg(l.toString(requeues));
    if (fails > 0)
        parts << QStringLiteral("%1 fail").arg(l.toString(fails));
    return parts.isEmpty() ? QStringLiteral("none open") : parts.join(QStringLiteral(", "));
}

HeldActionsModel::HeldActionsModel(QObject *parent) : QAbstractItemModel(parent) {}

QModelIndex HeldActionsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row < m_groups.size() ? createIndex(row, column, kGroupRow) : QModelIndex();
    if (parent.internalId() != kGroupRow || parent.row() >= m_groups.size())
        return {};
    const Group &g = m_groups.at(parent.row());
    return row < g.entries.size() ? createIndex(row, column, quintptr(parent.row()))
                                  : QModelIndex();
}

QModelIndex HeldActionsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kGroupRow)
        return {};
    return createIndex(static_cast<int>(child.internalId()), 0, kGroupRow);
}

int HeldActionsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() == kGroupRow && parent.column() == 0 && parent.row() < m_groups.size())
        return static_cast<int>(m_groups.at(parent.row()).entries.size());
    return 0;
}

int HeldActionsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

const HeldActionsModel::Entry *HeldActionsModel::entryAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == kGroupRow)
        return nullptr;
    const auto g = static_cast<qsizetype>(index.internalId());
    if (g >= m_groups.size() || index.row() >= m_groups.at(g).entries.size())
        return nullptr;
    return &m_entries.at(m_groups.at(g).entries.at(index.row()));
}

QVariant HeldActionsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kGroupRow) {
        if (index.row() >= m_groups.size())
            return {};
        if (role == GroupRole)
            return true;
        if (role == IdRole)
            return qint64(0);
        return groupData(m_groups.at(index.row()), index.column(), role);
    }
    const Entry *e = entryAt(index);
    if (!e)
        return {};
    switch (role) {
    case IdRole:
        return e->held->id;
    case GroupRole:
        return false;
    case DecidedRole:
        return e->decision.has_value();
    default:
        return entryData(*e, index.column(), role);
    }
}

QVariant HeldActionsModel::groupData(const Group &g, int column, int role) const
{
    const GroupSummary s = summaryOf(g);
    if (role == Qt::FontRole && column == WhatColumn) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole)
        return s.reason;
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case WhatColumn:
        return QStringLiteral("%1 \u2014 %2").arg(g.domain, heldLimitText(g.limit));
    case KindColumn:
        return heldKindsText(s.requeues, s.fails);
    case SinceColumn:
        return sinceText(g.oldest); // set by summaryOf above
    case StateColumn:
        return QStringLiteral("%1 of %2 waiting")
            .arg(QLocale().toString(s.openIds.size()), QLocale().toString(g.entries.size()));
    default:
        return {};
    }
}

QVariant HeldActionsModel::entryData(const Entry &e, int column, int role) const
{
    const HeldAction &h = *e.held;
    const Action &a = h.action;
    if (role == Qt::ForegroundRole && e.decision) // decided: the outcome stands out, the rest greys
        return QBrush(column == StateColumn ? outcomeColor(e.decision->outcome)
                                            : QColor(0x78, 0x90, 0x9c));
    if (role == Qt::ToolTipRole) {
        if (column == StateColumn && e.decision)
            return e.decision->detail;
        if (column == SeenColumn)
            return preconditionText(a.precondition);
        return a.reason;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case WhatColumn:
        return QStringLiteral("#%1  %2").arg(h.id).arg(a.rowId);
    case KindColumn:
        return actionKindName(a.kind);
    case JobColumn:
        return a.kind == ActionKind::Requeue ? QStringLiteral("%1 / %2").arg(a.queue, a.jobId)
                                             : QStringLiteral("\u2014");
    case SeenColumn:
        return compactPreconditionText(a.precondition);
    case SinceColumn:
        return sinceText(h.heldAt);
    case StateColumn:
        if (e.decision)
            return decisionText(h.id);
        if (e.deciding)
            return QStringLiteral("deciding\u2026");
        if (h.state == HeldState::Approved)
            return QStringLiteral("approved by %1, running").arg(h.stateBy);
        return heldStateName(h.state);
    default:
        return {};
    }
}

QVariant HeldActionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case WhatColumn:
        return QStringLiteral("Held action");
    case KindColumn:
        return QStringLiteral("Kind");
    case JobColumn:
        return QStringLiteral("Queue / job");
    case SeenColumn:
        return QStringLiteral("Row as seen");
    case SinceColumn:
        return QStringLiteral("Held since");
    case StateColumn:
        return QStringLiteral("State");
    default:
        return {};
    }
}

void HeldActionsModel::setHeld(const QList<HeldAction> &held)
{
    const QList<HeldAction> listing = held; // shared, not copied: the entries point into it
    QList<Entry> entries;
    entries.reserve(listing.size());
    QSet<qint64> listed;
    listed.reserve(listing.size());
    for (const HeldAction &h : listing) {
        listed.insert(h.id);
        entries.append(Entry{&h, false, std::nullopt, 0, -1, -1});
    }
    // The listing drops what is decided; this console's own decisions stay until cleared, the
    // newest kMaxKeptDecisions of them in the order they were decided.
    QList<int> kept;
    for (qsizetype i = 0; i < m_entries.size(); ++i)
        if (m_entries.at(i).decision && !listed.contains(m_entries.at(i).held->id))
            kept << static_cast<int>(i);
    std::sort(kept.begin(), kept.end(), [this](int a, int b) {
        return m_entries.at(a).decidedOrder < m_entries.at(b).decidedOrder;
    });
    if (kept.size() > kMaxKeptDecisions)
        kept.remove(0, kept.size() - kMaxKeptDecisions);
    std::deque<HeldAction> owned; // what the earlier listing showed of them, copied out
    for (int i : kept) {
        owned.push_back(*m_entries.at(i).held);
        entries.append(std::move(m_entries[i]));
        entries.last().held = &owned.back();
    }
    rebuild(std::move(entries), listing, std::move(owned));
}

void HeldActionsModel::clearDecided()
{
    // What stays is undecided, and only a decided entry is ever a copy in m_owned (kept from an
    // earlier listing, or as its decision left it): the rest point into the listing.
    QList<Entry> entries;
    for (Entry &e : m_entries)
        if (!e.decision)
            entries.append(std::move(e));
    rebuild(std::move(entries), m_listing, {});
}

int HeldActionsModel::decidedCount() const
{
    return static_cast<int>(std::count_if(m_entries.cbegin(), m_entries.cend(),
                                          [](const Entry &e) { return e.decision.has_value(); }));
}

void HeldActionsModel::rebuild(QList<Entry> entries, QList<HeldAction> listing,
                               std::deque<HeldAction> owned)
{
    beginResetModel();
    m_entries = std::move(entries);
    // Moved, so the entries' pointers stay good: a QList moves its block, a deque its chunks.
    m_listing = std::move(listing);
    m_owned = std::move(owned);
    m_groups.clear();
    m_byId.clear();
    // Domains in name order, and within one the groups in the order their oldest entry came
    // (the listing is oldest first), so a refresh does not shuffle what the operator looks at.
    QMap<QString, QList<int>> byDomain;
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        const HeldAction &h = *m_entries.at(i).held;
        m_byId.insert(h.id, static_cast<int>(i));
        byDomain[h.action.domain].append(static_cast<int>(i));
    }
    for (auto it = byDomain.cbegin(); it != byDomain.cend(); ++it) {
        const qsizetype first = m_groups.size();
        for (int i : it.value()) {
            const QString &limit = m_entries.at(i).held->heldLimit;
            qsizetype g = first;
            while (g < m_groups.size() && m_groups.at(g).limit != limit)
                ++g;
            if (g == m_groups.size())
                m_groups.append(Group{it.key(), limit, {}, std::nullopt, {}});
            m_entries[i].group = static_cast<int>(g);
            m_entries[i].row = static_cast<int>(m_groups.at(g).entries.size());
            m_groups[g].entries.append(i);
        }
    }
    endResetModel();
}

void HeldActionsModel::setDeciding(const QList<qint64> &ids)
{
    QList<int> changed;
    for (qint64 id : ids) {
        const int i = m_byId.value(id, -1);
        if (i < 0)
            continue;
        m_entries[i].deciding = true;
        changed << i;
    }
    emitChanged(changed);
}

void HeldActionsModel::applyDecisions(const QList<HeldDecision> &decisions)
{
    QList<int> changed;
    for (const HeldDecision &decision : decisions) {
        const int i = m_byId.value(decision.id, -1);
        if (i < 0)
            continue;
        Entry &e = m_entries[i];
        e.deciding = false;
        e.decision = Entry::Decided{decision.outcome, decision.detail};
        e.decidedOrder = ++m_decisions;
        if (decision.current) {
            m_owned.push_back(*decision.current);
            e.held = &m_owned.back();
        }
        changed << i;
    }
    emitChanged(changed);
}

void HeldActionsModel::emitChanged(const QList<int> &entries)
{
    QHash<int, QPair<int, int>> rows; // group → first and last changed row
    for (int i : entries) {
        const Entry &e = m_entries.at(i);
        if (e.group < 0)
            continue;
        m_groups.at(e.group).summary.reset();
        auto it = rows.find(e.group);
        if (it == rows.end())
            rows.insert(e.group, {e.row, e.row});
        else
            *it = {std::min(it->first, e.row), std::max(it->second, e.row)};
    }
    for (auto it = rows.cbegin(); it != rows.cend(); ++it) {
        const QModelIndex group = index(it.key(), 0);
        emit dataChanged(index(it->first, 0, group), index(it->second, ColumnCount - 1, group));
        emit dataChanged(group, group.siblingAtColumn(ColumnCount - 1));
    }
}

int HeldActionsModel::waitingCount() const
{
    int n = 0;
    for (const Entry &e : m_entries)
        n += (!e.decision && !e.deciding && e.held->state == HeldState::Held) ? 1 : 0;
    return n;
}

const HeldAction *HeldActionsModel::heldAction(const QModelIndex &index) const
{
    const Entry *e = entryAt(index);
    return e ? e->held : nullptr;
}

const HeldAction *HeldActionsModel::heldAction(qint64 id) const
{
    const int i = m_byId.value(id, -1);
    return i < 0 ? nullptr : m_entries.at(i).held;
}

QModelIndex HeldActionsModel::indexOf(qint64 id, int column) const
{
    const int i = m_byId.value(id, -1);
    if (i < 0 || m_entries.at(i).group < 0)
        return {};
    const Entry &e = m_entries.at(i);
    return createIndex(e.row, column, quintptr(e.group));
}

bool HeldActionsModel::isDecidable(qint64 id) const
{
    const int i = m_byId.value(id, -1);
    if (i < 0)
        return false;
    const Entry &e = m_entries.at(i);
    return !e.decision && !e.deciding && e.held->state == HeldState::Held;
}

QString HeldActionsModel::decisionText(qint64 id) const
{
    const int i = m_byId.value(id, -1);
    if (i < 0 || !m_entries.at(i).decision)
        return {};
    const Entry::Decided &d = *m_entries.at(i).decision;
    const HeldAction &h = *m_entries.at(i).held;
    switch (d.outcome) {
    case HeldDecision::Outcome::Executed:
        return QStringLiteral("executed");
    case HeldDecision::Outcome::Superseded:
        return QStringLiteral("superseded: not run");
    case HeldDecision::Outcome::HeldAgain:
        return QStringLiteral("held again");
    case HeldDecision::Outcome::Rejected:
        return QStringLiteral("rejected");
    case HeldDecision::Outcome::AlreadyTaken:
        return h.stateBy.isEmpty()
                   ? QStringLiteral("already %1").arg(heldStateName(h.state))
                   : QStringLiteral("already %1 by %2").arg(heldStateName(h.state), h.stateBy);
    case HeldDecision::Outcome::NoSuchAction:
        return QStringLiteral("gone");
    case HeldDecision::Outcome::StoreFailed:
        return QStringLiteral("not decided: store error");
    }
    return {};
}

HeldActionsModel::GroupSummary HeldActionsModel::summaryOf(const Group &g) const
{
    if (g.summary)
        return *g.summary;
    GroupSummary s{g.domain, g.limit, {}, {}, 0, 0};
    QDateTime newest;
    g.oldest = {};
    for (int i : g.entries) {
        const Entry &e = m_entries.at(i);
        if (!newest.isValid() || e.held->lastSeenAt >= newest) {
            newest = e.held->lastSeenAt;
            s.reason = e.held->action.heldReason;
        }
        if (!g.oldest.isValid() || e.held->heldAt < g.oldest)
            g.oldest = e.held->heldAt;
        if (e.decision || e.deciding || e.held->state != HeldState::Held)
            continue;
        s.openIds << e.held->id;
        (e.held->action.kind == ActionKind::Requeue ? s.requeues : s.fails) += 1;
    }
    g.summary = s;
    return s;
}

HeldActionsModel::GroupSummary HeldActionsModel::summary(const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const qsizetype g =
        index.internalId() == kGroupRow ? index.row() : static_cast<qsizetype>(index.internalId());
    return g < m_groups.size() ? summaryOf(m_groups.at(g)) : GroupSummary{};
}

QList<HeldActionsModel::GroupSummary>
HeldActionsModel::summariesOfDomain(const QString &domain) const
{
    QList<GroupSummary> out;
    for (const Group &g : m_groups)
        if (g.domain == domain)
            out << summaryOf(g);
    return out;
}

} // namespace reclaim::ui
