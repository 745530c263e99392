// Where held actions are kept between runs (#29): PostgreSQL's reclaim.held_action in production
// (postgres/heldactionlog.cpp). Every transition is conditional on the state it leaves and is
// recorded with who made it, so two approvers of one action run it once.
#pragma once

#include "domain/heldaction.h"
#include "ports/jobstore.h"

#include <QHash>
#include <QSet>

namespace reclaim {

struct HeldFilter
{
    QString domain;                 // empty: every domain
    std::optional<ActionKind> kind; // nullopt: both
    QList<qint64> ids;              // empty: any
    bool openOnly = true;           // held and approved only
};

// One approved entry's end: where it goes, and why.
struct HeldSettle
{
    qint64 id = 0;
    HeldState to = HeldState::Held;
    QString detail;
};

class HeldActionStore
{
public:
    virtual ~HeldActionStore() = default;

    // The entries matching `filter`, oldest first (empty where Reclaim's schema does not exist).
    virtual Expected<QList<HeldAction>, StoreError> heldActions(const HeldFilter &filter) = 0;
    // Only the ids of those held now (state held), in the same order.
    virtual Expected<QList<qint64>, StoreError> idsHeldNow(const HeldFilter &filter) = 0;

    // Applies one run's plan for one domain in one transaction: settles, keeps and adds, each
    // transition recorded. Returns the id of every entry now held for a row of this run ("row
    // id" → id), for the report.
    virtual Expected<QHash<QString, qint64>, StoreError>
    applyHeldSync(const QString &domain, const HeldSyncPlan &plan, const Actor &run) = 0;

    // Every entry in state held, grouped by domain, kind and limit, with the oldest's time.
    virtual Expected<QList<HeldGroup>, StoreError> heldGroups() = 0;

    // held → approved by `approver`, each only if it is held now: one claim per id, in the order
    // of `ids`. Not claimed: `current` says where it stands (approved by whom, rejected,
    // superseded...), or is empty when no such id exists.
    virtual Expected<QList<HeldClaim>, StoreError> claimHeldMany(const QList<qint64> &ids,
                                                                 const Actor &approver) = 0;

    // approved → each one's `to` (executed, superseded, or held again when the approval decided
    // nothing), with its detail, each only while it is approved. The ids that were settled.
    virtual Expected<QSet<qint64>, StoreError> settleApprovedMany(const QList<HeldSettle> &settles,
                                                                  const Actor &approver) = 0;

    // held → rejected by `by`, with the operator's reason, each only if it is held now: one
    // claim per id, in the order of `ids`. Not claimed: as claimHeldMany.
    virtual Expected<QList<HeldClaim>, StoreError>
    rejectHeldMany(const QList<qint64> &ids, const Actor &by, const QString &reason) = 0;
};

} // namespace reclaim
