#include "postgres/pgjobstore.h"

#include "fencing/pgfence.h"
#include "postgres/auditlog.h"
#include "postgres/candidatequery.h"
#include "postgres/conditionalwrite.h"
#include "postgres/heldactionlog.h"
#include "postgres/planreads.h"
#include "postgres/reclaimschema.h"
#include "postgres/rejectionlog.h"
#include "postgres/sqltext.h"

#include <QSet>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <algorithm>
#include <utility>

namespace reclaim {

PgJobStore::PgJobStore(std::unique_ptr<PgConnection> conn, const ReclaimConfig &config,
                       bool readOnly)
    : m_conn(std::move(conn)), m_config(config), m_readOnly(readOnly),
      // The longest a call may rightly take: a start waiting out a frozen writer, plus one
      // statement.
      m_callLimit(fenceWaitMs(config.run) + config.run.postgresTimeout.count())
{}

PgJobStore::~PgJobStore() = default;

QString PgJobStore::connectionName() const
{
    return m_conn->name();
}

Expected<std::unique_ptr<PgJobStore>, StoreError> PgJobStore::open(const ReclaimConfig &config,
                                                                   bool readOnly)
{
    auto conn = PgConnection::open(config);
    if (!conn)
        return unexpected(conn.error());
    // Opening writes nothing: Reclaim's schema is created by startGeneration(), which a run
    // calls only once it holds the lock, so a run skipped for a held lock or an unreachable
    // Redis leaves PostgreSQL exactly as it found it (issue 18).
    return std::unique_ptr<PgJobStore>(new PgJobStore(std::move(*conn), config, readOnly));
}

template <typename Call> auto PgJobStore::watched(Call &&call)
{
    m_watchdog.arm(live().socket(), m_callLimit);
    auto result = call();
    if (m_watchdog.disarm() && !result)
        result = unexpected(
            StoreError{result.error().message +
                       QStringLiteral("; no answer within %1 ms: Reclaim closed the connection")
                           .arg(m_callLimit.count())});
    return result;
}

PgConnection &PgJobStore::live()
{
    if (!m_conn->alive()) {
        auto fresh = PgConnection::open(m_config);
        if (fresh) // otherwise the old one fails the statement with the reason
            m_conn = std::move(*fresh);
    }
    return *m_conn;
}

Expected<bool, StoreError> PgJobStore::migrate()
{
    return watched([&]() -> Expected<bool, StoreError> {
        QSqlDatabase db = m_conn->database();
        QSqlQuery q(db);
        if (!db.transaction())
            return unexpected(
                m_conn->failure(QStringLiteral("beginning Reclaim's schema migration")));
        for (const QString &sql : reclaimSchemaStatements()) {
            if (!q.exec(sql)) {
                StoreError e = m_conn->failure(QStringLiteral("creating Reclaim's schema"), q);
                db.rollback();
                return unexpected(e);
            }
        }
        if (!pgfence::carryOver(q, m_conn->lockKey())) {
            StoreError e = m_conn->failure(QStringLiteral("moving the fence to its lock key"), q);
            db.rollback();
            return unexpected(e);
        }
        if (!db.commit())
            return unexpected(m_conn->failure(QStringLiteral("committing Reclaim's schema")));
        return true;
    });
}

Expected<QList<Candidate>, StoreError> PgJobStore::readCandidates(const DomainConfig &d,
                                                                  RowJson rowJson)
{
    return watched([&]() -> Expected<QList<Candidate>, StoreError> {
        return reclaim::readCandidates(live(), d, rowJson);
    });
}

Expected<std::optional<QByteArray>, StoreError>
PgJobStore::restorePayload(const DomainConfig &d, const RestoreRule &rule, const QString &rowId)
{
    return watched([&]() -> Expected<std::optional<QByteArray>, StoreError> {
        QSqlQuery q(live().database());
        q.setForwardOnly(true);
        if (!q.prepare(rule.query))
            return unexpected(m_conn->failure(
                QStringLiteral("preparing the restore query of %1").arg(d.name), q));
        q.bindValue(QStringLiteral(":jobId"), rowId);
        if (!q.exec())
            return unexpected(
                m_conn->failure(QStringLiteral("running the restore query of %1").arg(d.name), q));
        if (!q.next() || q.value(0).isNull())
            return std::optional<QByteArray>();
        return std::optional<QByteArray>(compactUtf8(q.value(0)));
    });
}

Expected<int, StoreError> PgJobStore::recentRequeues(const DomainConfig &d, const QString &rowId)
{
    return watched([&]() -> Expected<int, StoreError> {
        PgConnection &conn = live();
        const auto schema = conn.hasReclaimTable(QStringLiteral("requeue"));
        if (!schema)
            return unexpected(schema.error());
        if (!*schema)
            return 0;
        QSqlQuery q(conn.database());
        q.prepare(
            QStringLiteral("SELECT count(*) FROM reclaim.requeue WHERE domain = ? AND row_id = ? "
                           "AND at > now() - make_interval(secs => ?)"));
        q.addBindValue(d.name);
        q.addBindValue(rowId);
        q.addBindValue(static_cast<double>(d.requeueWindow.count()));
        if (!q.exec() || !q.next())
            return unexpected(conn.failure(
                QStringLiteral("reading the retry budget of %1/%2").arg(d.name, rowId), q));
        return q.value(0).toInt();
    });
}

Expected<QHash<QString, int>, StoreError> PgJobStore::recentRequeuesOf(const DomainConfig &d,
                                                                       const QStringList &rowIds)
{
    return watched([&] { return readRecentRequeues(live(), d, rowIds); });
}

QHash<QString, RestoredInput> PgJobStore::restorePayloadsOf(const DomainConfig &d,
                                                            const RestoreRule &rule,
                                                            const QStringList &rowIds)
{
    QHash<QString, RestoredInput> out;
    out.reserve(rowIds.size());
    auto set = watched([&] { return readRestorePayloads(live(), d, rule, rowIds); });
    if (set) {
        for (qsizetype i = 0; i < rowIds.size(); ++i)
            out.insert(rowIds.at(i), RestoredInput{std::move((*set)[i]), std::nullopt});
        return out;
    }
    // A lost (or timed-out, so closed) connection: every row gets that error, at once. Asking
    // row by row would wait out the timeout once per row.
    if (!m_conn->alive()) {
        for (const QString &id : rowIds)
            out.insert(id, RestoredInput{std::nullopt, set.error()});
        return out;
    }
    // The statement failed on a live connection: a query that only works with a bound parameter
    // (a column of another type than text compared with :jobId), or one row whose query fails.
    // Row by row, each row gets its own answer, as before sets.
    return JobStore::restorePayloadsOf(d, rule, rowIds);
}

Expected<qint64, StoreError> PgJobStore::fenceGeneration()
{
    return watched([&]() -> Expected<qint64, StoreError> {
        PgConnection &conn = live();
        const auto schema = conn.hasReclaimTable(QStringLiteral("fence"));
        if (!schema)
            return unexpected(schema.error());
        if (!*schema)
            return 0;
        QSqlQuery q(conn.database());
        const std::optional<qint64> highest = pgfence::highest(q, conn.lockKey());
        if (!highest)
            return unexpected(conn.failure(QStringLiteral("reading the fence"), q));
        return *highest;
    });
}

Expected<bool, StoreError> PgJobStore::startGeneration(qint64 generation)
{
    if (m_readOnly)
        return unexpected(StoreError{QStringLiteral("a read-only store starts no generation")});
    // The first write of a run that holds the lock: make sure Reclaim's schema is there.
    if (!m_migrated) {
        auto migrated = migrate();
        if (!migrated)
            return unexpected(migrated.error());
        m_migrated = true;
    }
    return watched([&]() -> Expected<bool, StoreError> {
        PgConnection &conn = live();
        QSqlDatabase db = conn.database();
        QSqlQuery q(db);
        const QString what = QStringLiteral("recording run generation %1").arg(generation);
        if (!db.transaction())
            return unexpected(conn.failure(what));
        // A writer frozen inside its transaction holds the fence FOR SHARE until the server ends
        // its session (idle_in_transaction_session_timeout): wait past that, not the usual timeout.
        const qint64 waitMs = fenceWaitMs(m_config.run);
        std::optional<bool> started;
        if (q.exec(QStringLiteral("SET LOCAL lock_timeout = %1").arg(waitMs)) &&
            q.exec(QStringLiteral("SET LOCAL statement_timeout = %1").arg(waitMs)))
            started = pgfence::start(q, generation, conn.lockKey());
        if (!started) {
            StoreError e = conn.failure(what, q);
            db.rollback();
            return unexpected(e);
        }
        if (!db.commit())
            return unexpected(conn.failure(what));
        return *started;
    });
}

Expected<qint64, StoreError> PgJobStore::recordIntent(const Action &a, const Actor &actor)
{
    return watched([&]() -> Expected<qint64, StoreError> {
        if (m_readOnly)
            return unexpected(StoreError{QStringLiteral("the store is read-only")});
        finishPending();
        PgConnection &conn = live();
        QSqlQuery q(conn.database());
        const std::optional<qint64> id = reclaim::recordIntent(q, a, actor);
        if (!id)
            return unexpected(
                conn.failure(QStringLiteral("recording the attempt on %1").arg(a.rowId), q));
        return *id;
    });
}

Expected<WriteOutcome, StoreError> PgJobStore::applyAction(const DomainConfig &d, const Action &a,
                                                           const Actor &actor)
{
    return watched(
        [&]() -> Expected<WriteOutcome, StoreError> { return writeAction(live(), d, a, actor); });
}

void PgJobStore::auditOnly(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return;
    finishPending();
    // Best effort: the audit of a non-write must not turn into a failed action. A completion
    // that cannot be written now (the server is away) is kept and written at the next chance.
    const bool released =
        a.result == ActionResult::EnqueueFailed || a.result == ActionResult::Dropped;
    for (int attempt = 0; attempt < 2; ++attempt) {
        QSqlQuery q(live().database());
        m_watchdog.arm(m_conn->socket(), m_callLimit);
        const bool done = a.auditId != 0
                              ? finishAudit(q, a.auditId, a.result, a.resultDetail, released)
                              : appendAudit(q, a, a.result, a.resultDetail, actor);
        m_watchdog.disarm();
        if (done)
            return;
        if (m_conn->alive())
            break; // the statement itself failed, not the connection: retrying would not help
    }
    if (a.auditId != 0)
        m_unfinished << PendingFinish{a, actor};
}

namespace {

// Whether every action names a distinct row of its domain (a batch's set statements tie their
// answers back to actions by row).
bool distinctRows(const QList<const Action *> &actions)
{
    // A batch is one domain's: its row ids alone tell (shared, not copied, into the set).
    // Actions of several domains are keyed by both.
    const bool oneDomain = std::all_of(actions.cbegin(), actions.cend(), [&](const Action *a) {
        return a->domain == actions.first()->domain;
    });
    QSet<QString> seen;
    seen.reserve(actions.size());
    for (const Action *a : actions) {
        const qsizetype before = seen.size();
        seen.insert(oneDomain ? a->rowId : a->domain + QChar(0) + a->rowId);
        if (seen.size() == before)
            return false;
    }
    return true;
}

} // namespace

Expected<QList<qint64>, StoreError> PgJobStore::recordIntents(const QList<const Action *> &actions,
                                                              const Actor &actor)
{
    if (!distinctRows(actions))
        return JobStore::recordIntents(actions, actor);
    return watched([&]() -> Expected<QList<qint64>, StoreError> {
        if (m_readOnly)
            return unexpected(StoreError{QStringLiteral("the store is read-only")});
        finishPending();
        return reclaim::recordIntents(live(), actions, actor);
    });
}

QList<Expected<WriteOutcome, StoreError>>
PgJobStore::applyActions(const DomainConfig &d, const QList<const Action *> &actions,
                         const Actor &actor)
{
    const bool audited = std::all_of(actions.cbegin(), actions.cend(),
                                     [](const Action *a) { return a->auditId != 0; });
    if (actions.isEmpty() || !audited || !distinctRows(actions))
        return JobStore::applyActions(d, actions, actor);
    auto written = watched([&]() -> Expected<QList<WriteOutcome>, StoreError> {
        if (m_readOnly)
            return unexpected(StoreError{QStringLiteral("the store is read-only")});
        PgConnection &conn = live();
        const auto types = rowKeyTypes(conn, d);
        if (!types)
            return unexpected(types.error());
        return writeActions(conn, d, *types, actions);
    });
    if (!written && !m_conn->alive())
        written = settleAfterCut(actions, written.error());
    QList<Expected<WriteOutcome, StoreError>> out;
    out.reserve(actions.size());
    for (qsizetype i = 0; i < actions.size(); ++i)
        out << (written ? Expected<WriteOutcome, StoreError>(written->at(i))
                        : Expected<WriteOutcome, StoreError>(unexpected(written.error())));
    return out;
}

void PgJobStore::auditOnlyMany(const QList<const Action *> &actions, const Actor &actor)
{
    if (m_readOnly || actions.isEmpty())
        return;
    QList<const Action *> started;
    for (const Action *a : actions) {
        if (a->auditId == 0)
            auditOnly(*a, actor); // nothing recorded before: an audit row of its own
        else
            started << a;
    }
    if (started.isEmpty())
        return;
    finishPending();
    // Best effort, as auditOnly: one retry on a new connection, then kept for a later chance.
    for (int attempt = 0; attempt < 2; ++attempt) {
        QSqlQuery q(live().database());
        m_watchdog.arm(m_conn->socket(), m_callLimit);
        const bool done = finishAuditSet(q, started);
        m_watchdog.disarm();
        if (done)
            return;
        if (m_conn->alive())
            break;
    }
    for (const Action *a : started)
        m_unfinished << PendingFinish{*a, actor};
}

QStringList PgJobStore::finishAudits()
{
    if (m_readOnly)
        return {};
    finishPending();
    QStringList left;
    for (const PendingFinish &p : std::as_const(m_unfinished))
        left << QStringLiteral("audit row %1 (%2) still reads \"started\": its result, %3, could "
                               "not be recorded")
                    .arg(p.action.auditId)
                    .arg(p.action.id, actionResultName(p.action.result));
    return left;
}

void PgJobStore::finishPending()
{
    const QList<PendingFinish> pending = std::exchange(m_unfinished, {});
    for (const PendingFinish &p : pending) {
        QSqlQuery q(live().database());
        const bool released = p.action.result == ActionResult::EnqueueFailed ||
                              p.action.result == ActionResult::Dropped;
        m_watchdog.arm(m_conn->socket(), m_callLimit);
        const bool done =
            finishAudit(q, p.action.auditId, p.action.result, p.action.resultDetail, released);
        m_watchdog.disarm();
        if (!done)
            m_unfinished << p;
    }
}

Expected<std::optional<Candidate>, StoreError> PgJobStore::readRow(const DomainConfig &d,
                                                                   const QString &rowId)
{
    return readRowById(*m_conn, d, rowId);
}

Expected<QHash<QString, Candidate>, StoreError> PgJobStore::readRows(const DomainConfig &d,
                                                                     const QStringList &rowIds)
{
    return watched([&]() -> Expected<QHash<QString, Candidate>, StoreError> {
        PgConnection &conn = live();
        const auto types = rowKeyTypes(conn, d);
        if (!types)
            return unexpected(types.error());
        return readRowsById(conn, d, types->id, rowIds);
    });
}

Expected<QList<WriteOutcome>, StoreError>
PgJobStore::settleAfterCut(const QList<const Action *> &actions, const StoreError &cut)
{
    // The connection died in the transaction: it may have committed (a COMMIT cut in flight),
    // or not. Its audit rows, read again on a fresh connection, say which; failing that, every
    // action is "unknown", never "failed": the row may be written.
    const auto read = watched([&] { return readCommittedOutcomes(live(), actions); });
    if (!read) {
        WriteOutcome unknown;
        unknown.result = ActionResult::Unknown;
        unknown.note = QStringLiteral("unknown: the write may have committed (the connection was "
                                      "lost in its transaction: %1; reading its audit rows again "
                                      "failed: %2); the next run reads the row as it is")
                           .arg(cut.message, read.error().message);
        return QList<WriteOutcome>(actions.size(), unknown);
    }
    if (!*read)
        return unexpected(
            StoreError{cut.message +
                       QStringLiteral("; read again on a new connection: nothing was committed")});
    QList<WriteOutcome> out = **read;
    for (WriteOutcome &o : out)
        o.note = QStringLiteral("the connection was lost at the commit (%1); read again on a new "
                                "connection, the write had committed")
                     .arg(cut.message);
    return out;
}

Expected<RowKeyTypes, StoreError> PgJobStore::rowKeyTypes(PgConnection &conn, const DomainConfig &d)
{
    auto types = m_rowKeyTypes.constFind(d.name);
    if (types == m_rowKeyTypes.constEnd()) {
        auto read = readRowKeyTypes(conn, d);
        if (!read)
            return unexpected(read.error());
        types = m_rowKeyTypes.insert(d.name, *read);
    }
    return *types;
}

Expected<QList<Rejection>, StoreError> PgJobStore::activeRejections(const DomainConfig &d)
{
    return readActiveRejections(*m_conn, d.name);
}

Expected<Rejection, StoreError> PgJobStore::recordRejection(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return unexpected(
            StoreError{QStringLiteral("a read-only console records no rejection (%1)").arg(a.id)});
    return writeRejection(*m_conn, a, actor);
}

Expected<int, StoreError> PgJobStore::recordRejections(const QList<const Action *> &actions,
                                                       const Actor &actor)
{
    if (m_readOnly)
        return unexpected(StoreError{QStringLiteral("a read-only console records no rejection "
                                                    "(%1 actions)")
                                         .arg(actions.size())});
    return watched([&] { return writeRejections(live(), actions, actor); });
}

Expected<int, StoreError> PgJobStore::undoRejection(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return unexpected(
            StoreError{QStringLiteral("a read-only console undoes no rejection (%1)").arg(a.id)});
    return writeRejectionUndo(*m_conn, a, actor);
}

std::optional<StoreError> PgJobStore::refusedWhenReadOnly(const QString &what) const
{
    if (!m_readOnly)
        return std::nullopt;
    return StoreError{QStringLiteral("a read-only console writes nothing (%1)").arg(what)};
}

Expected<QList<HeldAction>, StoreError> PgJobStore::heldActions(const HeldFilter &filter)
{
    return watched([&] { return readHeldActions(live(), filter); });
}

Expected<QList<qint64>, StoreError> PgJobStore::idsHeldNow(const HeldFilter &filter)
{
    return watched([&] { return readIdsHeldNow(live(), filter); });
}

Expected<QList<HeldGroup>, StoreError> PgJobStore::heldGroups()
{
    return watched([&] { return readHeldGroups(live()); });
}

Expected<QHash<QString, qint64>, StoreError>
PgJobStore::applyHeldSync(const QString &domain, const HeldSyncPlan &plan, const Actor &run)
{
    if (auto refused = refusedWhenReadOnly(QStringLiteral("held actions of %1").arg(domain)))
        return unexpected(*refused);
    return watched([&] { return writeHeldSync(live(), domain, plan, run); });
}

Expected<QList<HeldClaim>, StoreError> PgJobStore::claimHeldMany(const QList<qint64> &ids,
                                                                 const Actor &approver)
{
    if (auto refused =
            refusedWhenReadOnly(QStringLiteral("approval of %1 held actions").arg(ids.size())))
        return unexpected(*refused);
    return moveHeldMany(ids, HeldState::Approved,
                        QStringLiteral("approved by %1").arg(actorName(approver)), approver);
}

Expected<QList<HeldClaim>, StoreError>
PgJobStore::rejectHeldMany(const QList<qint64> &ids, const Actor &by, const QString &reason)
{
    if (auto refused =
            refusedWhenReadOnly(QStringLiteral("rejection of %1 held actions").arg(ids.size())))
        return unexpected(*refused);
    const QString detail = reason.isEmpty()
                               ? QStringLiteral("rejected by %1").arg(actorName(by))
                               : QStringLiteral("rejected by %1: %2").arg(actorName(by), reason);
    return moveHeldMany(ids, HeldState::Rejected, detail, by);
}

Expected<QList<HeldClaim>, StoreError> PgJobStore::moveHeldMany(const QList<qint64> &ids,
                                                                HeldState to, const QString &detail,
                                                                const Actor &by)
{
    QList<HeldClaim> out(ids.size());
    if (ids.isEmpty())
        return out;
    // Moved: the entry as the move left it. Not moved: where it stands now, and who took it —
    // read only when some were not moved here (a mass decision usually moves them all).
    const auto taken = watched([&] { return takeHeld(live(), ids, to, detail, by); });
    if (!taken)
        return unexpected(taken.error());
    QHash<qint64, const HeldAction *> byId;
    byId.reserve(taken->size());
    for (const HeldAction &h : *taken)
        byId.insert(h.id, &h);
    QList<qint64> notMoved;
    for (const qint64 id : ids)
        if (!byId.contains(id))
            notMoved << id;
    std::optional<QList<HeldAction>> rest;
    if (!notMoved.isEmpty()) {
        auto now = heldActions(HeldFilter{{}, std::nullopt, notMoved, false});
        if (!now)
            return unexpected(now.error());
        rest = std::move(*now);
    }
    QHash<qint64, const HeldAction *> restById;
    if (rest)
        for (const HeldAction &h : *rest)
            restById.insert(h.id, &h);
    for (qsizetype i = 0; i < ids.size(); ++i) {
        if (const HeldAction *h = byId.value(ids.at(i))) {
            out[i].claimed = true;
            out[i].current = *h;
        } else if (const HeldAction *now = restById.value(ids.at(i))) {
            out[i].current = *now;
        }
    }
    return out;
}

Expected<QSet<qint64>, StoreError> PgJobStore::settleApprovedMany(const QList<HeldSettle> &settles,
                                                                  const Actor &approver)
{
    if (auto refused =
            refusedWhenReadOnly(QStringLiteral("settling %1 approved actions").arg(settles.size())))
        return unexpected(*refused);
    return watched([&] { return writeHeldMoves(live(), HeldState::Approved, settles, approver); });
}

} // namespace reclaim
