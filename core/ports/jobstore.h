// The job store port: where candidates are read and conditional writes go (PostgreSQL in
// production).
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "domain/candidate.h"
#include "util/expected.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace reclaim {

class HeldActionStore;

struct StoreError
{
    QString message;
};

// One row's rebuilt input, when many rows are asked at once (restorePayloadsOf).
struct RestoredInput
{
    std::optional<QByteArray> payload; // nullopt: the restore query found nothing to rebuild
    std::optional<StoreError> error;   // this row's restore failed: nothing known of its input
};

// Who is acting, for the audit trail.
struct Actor
{
    QString kind; // "daemon", "operator", "once"
    QString host;
    QString user;
    QString runId;
};

struct WriteOutcome
{
    // Applied, Stale or Fenced; Unknown when the connection was lost at the commit and what the
    // transaction did could not be read again (it may have committed).
    ActionResult result = ActionResult::Applied;
    ParentChange parent;
    QString note; // how the outcome was learnt, when not from the transaction's own answer
};

// An operator's recorded "no" to the action planned for a row as it was then: while the row
// still has this status and updatedAt, no run offers the action again.
struct Rejection
{
    QString domain;
    QString rowId;
    QString status;
    QString updatedAtText;
    QString by; // "user@host"
    QDateTime at;

    // True when `candidate` is the row exactly as it was when rejected.
    bool covers(const Candidate &candidate) const
    {
        return candidate.domain == domain && candidate.id == rowId && candidate.status == status &&
               candidate.updatedAtText == updatedAtText;
    }
};

// "alice@host" — or "operator@host" where no user name is known (no USER in the environment) —
// how an actor is named on screen and in rejections.
inline QString actorName(const Actor &actor)
{
    const QString who = actor.user.isEmpty() ? actor.kind : actor.user;
    return actor.host.isEmpty() ? who : who + QLatin1Char('@') + actor.host;
}

class JobStore
{
public:
    virtual ~JobStore() = default;

    // Rows in a candidate status, older than the domain's threshold, oldest first; each row's
    // JSON only when asked for.
    virtual Expected<QList<Candidate>, StoreError> readCandidates(const DomainConfig &domain,
                                                                  RowJson rowJson) = 0;

    // The rebuilt payload, or nullopt when the restore query finds nothing to rebuild from.
    virtual Expected<std::optional<QByteArray>, StoreError>
    restorePayload(const DomainConfig &domain, const RestoreRule &rule, const QString &rowId) = 0;

    // How many times Reclaim requeued this row within the domain's retry window.
    virtual Expected<int, StoreError> recentRequeues(const DomainConfig &domain,
                                                     const QString &rowId) = 0;

    // Planning in sets (#30): the same answers for many rows at once, so a domain of 20,000
    // orphans is planned in a few statements, not 40,000 round trips one after the other. A row
    // missing from the answer has no requeues (restorePayloadsOf: has its own error). The
    // defaults ask row by row; the PostgreSQL store asks once per batch.
    virtual Expected<QHash<QString, int>, StoreError> recentRequeuesOf(const DomainConfig &domain,
                                                                       const QStringList &rowIds)
    {
        QHash<QString, int> used;
        for (const QString &id : rowIds) {
            auto n = recentRequeues(domain, id);
            if (!n)
                return unexpected(n.error());
            if (*n > 0)
                used.insert(id, *n);
        }
        return used;
    }
    virtual QHash<QString, RestoredInput> restorePayloadsOf(const DomainConfig &domain,
                                                            const RestoreRule &rule,
                                                            const QStringList &rowIds)
    {
        QHash<QString, RestoredInput> out;
        for (const QString &id : rowIds) {
            auto p = restorePayload(domain, rule, id);
            out.insert(id, p ? RestoredInput{*p, std::nullopt} : RestoredInput{{}, p.error()});
        }
        return out;
    }

    // The highest generation that started a run under the configured lock key (0: none yet).
    virtual Expected<qint64, StoreError> fenceGeneration() = 0;

    // Records `generation` as the highest that started a run. False if a higher one already did.
    virtual Expected<bool, StoreError> startGeneration(qint64 generation) = 0;

    // Commits, before the action is attempted, its audit row (result "started") and, for a
    // requeue, one use of the row's retry budget: whatever happens to the row write afterwards,
    // an enqueue that went through stays visible and counted. Returns the audit row's id, which
    // applyAction and auditOnly complete. An error means nothing was recorded: do not attempt it.
    virtual Expected<qint64, StoreError> recordIntent(const Action &action, const Actor &actor) = 0;

    // The action's conditional job write, then (only if it changed one row) its parent cleanup,
    // both fenced by the action's generation, with the audit row, in one transaction.
    virtual Expected<WriteOutcome, StoreError>
    applyAction(const DomainConfig &domain, const Action &action, const Actor &actor) = 0;

    // Executing in batches (#30): recordIntent, applyAction and auditOnly for many actions of
    // one domain (distinct rows) at once. The defaults go one action at a time; the PostgreSQL
    // store takes a few statements per batch.
    //
    // Every attempt recorded, or (on error) none: the audit ids, in the order of `actions`.
    virtual Expected<QList<qint64>, StoreError> recordIntents(const QList<const Action *> &actions,
                                                              const Actor &actor)
    {
        QList<qint64> ids;
        for (const Action *a : actions) {
            auto id = recordIntent(*a, actor);
            if (!id) {
                // Those already recorded will not be attempted: say so on their audit rows.
                for (qsizetype i = 0; i < ids.size(); ++i) {
                    Action undone = *actions.at(i);
                    undone.auditId = ids.at(i);
                    undone.result = ActionResult::Error;
                    undone.resultDetail = QStringLiteral("not attempted: recording the batch "
                                                         "failed: %1")
                                              .arg(id.error().message);
                    auditOnly(undone, actor);
                }
                return unexpected(id.error());
            }
            ids << *id;
        }
        return ids;
    }
    // Each action's write outcome, in order (the PostgreSQL store: one transaction for the
    // batch, so an error is every action's error and nothing was committed).
    virtual QList<Expected<WriteOutcome, StoreError>>
    applyActions(const DomainConfig &domain, const QList<const Action *> &actions,
                 const Actor &actor)
    {
        QList<Expected<WriteOutcome, StoreError>> out;
        out.reserve(actions.size());
        for (const Action *a : actions)
            out << applyAction(domain, *a, actor);
        return out;
    }
    virtual void auditOnlyMany(const QList<const Action *> &actions, const Actor &actor)
    {
        for (const Action *a : actions)
            auditOnly(*a, actor);
    }

    // Records the result of an action whose row was not written (enqueue failed, dropped, row
    // write failed, ...): completes its audit row (action.auditId) or appends one. An enqueue
    // that left nothing runnable (enqueue-failed, dropped) gives its retry-budget use back.
    // Best effort, on a new connection if the old one was lost.
    virtual void auditOnly(const Action &action, const Actor &actor) = 0;

    // The row `rowId` of `domain` whatever its status and age (find a job by id), or nullopt
    // when the table has no such row.
    virtual Expected<std::optional<Candidate>, StoreError> readRow(const DomainConfig &domain,
                                                                   const QString &rowId) = 0;

    // The rows `rowIds` of `domain` as they are now, by id; an id the table does not hold is
    // not in the answer. One statement in PostgreSQL (a mass approval reads 5,000 at a time),
    // which leaves out each row's JSON (Candidate::rowJson): an approval decides on the status
    // and updatedAt. Here, one readRow after the other.
    virtual Expected<QHash<QString, Candidate>, StoreError> readRows(const DomainConfig &domain,
                                                                     const QStringList &rowIds)
    {
        QHash<QString, Candidate> out;
        for (const QString &id : rowIds) {
            auto row = readRow(domain, id);
            if (!row)
                return unexpected(row.error());
            if (row->has_value())
                out.insert(id, **row);
        }
        return out;
    }

    // The rejections of rows in `domain` that were not undone (empty where Reclaim's schema
    // does not exist yet).
    virtual Expected<QList<Rejection>, StoreError> activeRejections(const DomainConfig &domain) = 0;

    // Records that `actor` rejected `action` on its row as observed (the action's precondition),
    // with its audit row, in one transaction.
    virtual Expected<Rejection, StoreError> recordRejection(const Action &action,
                                                            const Actor &actor) = 0;
    // The same for many actions (a whole domain rejected at once), each with its audit row.
    // How many were recorded; on error, the ones of the statements before it stay recorded (the
    // error says how many). The default records them one at a time.
    virtual Expected<int, StoreError> recordRejections(const QList<const Action *> &actions,
                                                       const Actor &actor)
    {
        int recorded = 0;
        for (const Action *a : actions) {
            const auto r = recordRejection(*a, actor);
            if (!r)
                return unexpected(StoreError{QStringLiteral("%1 (%2 recorded before)")
                                                 .arg(r.error().message)
                                                 .arg(recorded)});
            ++recorded;
        }
        return recorded;
    }

    // Undoes the active rejections of the action's row, with an audit row, in one transaction.
    // How many were undone (0: there was none).
    virtual Expected<int, StoreError> undoRejection(const Action &action, const Actor &actor) = 0;

    // Writes what could not be written when it happened — an attempt's audit completion kept
    // for a later chance while PostgreSQL was away (auditOnly) — and answers what still could
    // not be, one line each, for the run's report: called once at the end of every writing run,
    // so nothing is left only in a store's memory when the store goes.
    virtual QStringList finishAudits() { return {}; }

    // Where held actions are kept between runs (ports/heldactionstore.h), or null where this
    // store keeps none (then a run's held actions live only in its report).
    virtual HeldActionStore *heldActionStore() { return nullptr; }
};

} // namespace reclaim
