// The actions waiting for an operator (#29), whichever runner held them (the daemon, a --once,
// a console), grouped by domain and by what holds them (the guard's limit, or the domain's
// policy): one top-level row per group with its count, kinds and reason, one child row per held
// action with the row as it was seen. A decision made in this console shows on its row at once
// (executed, superseded, already approved by ...) and stays, greyed, across later listings until
// the operator clears it: the listing that follows a decision comes within milliseconds, and an
// outcome such as "already executed by alice" must not vanish before anyone has read it.
#pragma once

#include "domain/heldaction.h"
#include "recovery/heldapproval.h"

#include <QAbstractItemModel>
#include <QHash>
#include <deque>

namespace reclaim::ui {

class HeldActionsModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        WhatColumn,  // group: domain and what holds it; action: "#id row"
        KindColumn,  // group: "12 requeue, 3 fail"; action: its kind
        JobColumn,   // the queue and job id a requeue writes
        SeenColumn,  // the precondition: status and updatedAt as the run saw them
        SinceColumn, // when it was first held
        StateColumn, // held, approving..., or what the decision came to
        ColumnCount
    };
    enum Role
    {
        IdRole = Qt::UserRole + 1, // qint64; 0 on a group row
        GroupRole,                 // bool: a group row
        DecidedRole,               // bool: this console decided it (or saw it decided)
    };

    // One group: its actions still open (held or approved), with the kinds and the reason an
    // operator confirms before approving them together.
    struct GroupSummary
    {
        QString domain;
        QString limit;
        QString reason; // the newest entry's held reason (its counts are the latest run's)
        QList<qint64> openIds;
        int requeues = 0;
        int fails = 0;
    };

    explicit HeldActionsModel(QObject *parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // A fresh listing: replaces everything but this console's decisions the listing no longer
    // has (the newest kMaxKeptDecisions of them), which stay after the listed ones of their group.
    void setHeld(const QList<HeldAction> &held);
    // Drops the decisions kept from earlier listings and the ones shown now.
    void clearDecided();
    // How many rows show a decision of this console.
    int decidedCount() const;
    // Marks the actions an approval or rejection is on its way for.
    void setDeciding(const QList<qint64> &ids);
    // What decisions came to, each shown on its row until the operator clears it. A mass
    // approval answers 20,000 of them: applied together, one change signal per group.
    void applyDecisions(const QList<HeldDecision> &decisions);
    void applyDecision(const HeldDecision &decision) { applyDecisions({decision}); }

    // Still waiting for an operator: held, not decided in this console, not on its way.
    int waitingCount() const;
    const HeldAction *heldAction(const QModelIndex &index) const;
    const HeldAction *heldAction(qint64 id) const;
    QModelIndex indexOf(qint64 id, int column = 0) const;
    // The group of `index` (a group row, or an action's group), or of the domain's first group.
    GroupSummary summary(const QModelIndex &index) const;
    QList<GroupSummary> summariesOfDomain(const QString &domain) const;
    // Whether `id` can be decided from here now (held, nothing on its way).
    bool isDecidable(qint64 id) const;
    // What this console's decision came to, or "" when it has none.
    QString decisionText(qint64 id) const;

private:
    struct Entry
    {
        // Into m_listing or m_owned, never a copy: copying 20,000 held actions into new
        // memory was half of a listing's time on the UI thread.
        const HeldAction *held = nullptr;
        bool deciding = false;
        // What this console's decision came to: only what the row shows (a decision also
        // carries the whole entry and action, which are kept in `held` or not at all).
        struct Decided
        {
            HeldDecision::Outcome outcome;
            QString detail;
        };
        std::optional<Decided> decision;
        quint64 decidedOrder = 0; // when it was decided here, to keep the newest
        int group = -1;           // where it is shown: m_groups index and row in it
        int row = -1;
    };
    struct Group
    {
        QString domain;
        QString limit;
        QList<int> entries; // into m_entries
        // Painting asks for a group row's texts many times: its summary is kept until one of
        // its entries changes.
        mutable std::optional<GroupSummary> summary;
        mutable QDateTime oldest;
    };
    static constexpr quintptr kGroupRow = ~quintptr(0);
    // Bounds what a console that decides all day keeps; older decisions are in the audit.
    static constexpr int kMaxKeptDecisions = 1000;

    const Entry *entryAt(const QModelIndex &index) const;
    QVariant groupData(const Group &g, int column, int role) const;
    QVariant entryData(const Entry &e, int column, int role) const;
    GroupSummary summaryOf(const Group &g) const;
    // One dataChanged per group touched, from its first to its last changed row, and its row.
    void emitChanged(const QList<int> &entries);
    void rebuild(QList<Entry> entries, QList<HeldAction> listing, std::deque<HeldAction> owned);

    // The latest listing as it arrived, shared with its sender and never written to (a write
    // would detach it and leave the entries pointing at the sender's copy).
    QList<HeldAction> m_listing;
    // What the entries show beyond the listing, only ever for a decided entry: its entry as the
    // decision left it, or as an earlier listing had it. A deque: growing it moves nothing.
    // Each listing keeps only what it still shows; clearing the decisions empties it.
    std::deque<HeldAction> m_owned;
    QList<Entry> m_entries;
    QList<Group> m_groups;
    QHash<qint64, int> m_byId; // id → m_entries
    quint64 m_decisions = 0;   // decisions applied so far, for decidedOrder
};

// What holds a group, in words: "no trace in Redis", "more actions than run.guard.maxActions",
// "policy: approve".
QString heldLimitText(const QString &limit);
// "1,942 requeue, 3 fail".
QString heldKindsText(int requeues, int fails);

} // namespace reclaim::ui
