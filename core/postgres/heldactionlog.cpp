#include "postgres/heldactionlog.h"

#include "domain/jsonwriter.h"
#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"
#include "util/sqlinline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

using namespace Qt::Literals::StringLiterals;

const QString kColumns =
    QStringLiteral(
        "id, domain, row_id, kind, job_type, queue, job_id, job_name, reason, observed_status, "
        "observed_updated_at, generation, held_reason, held_limit, run_id, %1, last_run_id, "
        "%2, state, state_by, %3, state_detail")
        .arg(epochMsOf(QStringLiteral("held_at")), epochMsOf(QStringLiteral("last_seen_at")),
             epochMsOf(QStringLiteral("state_at")));

HeldAction heldFrom(const QSqlQuery &q)
{
    HeldAction h;
    h.id = q.value(0).toLongLong();
    Action &a = h.action;
    a.domain = q.value(1).toString();
    a.rowId = q.value(2).toString();
    a.id = a.domain + QLatin1Char('/') + a.rowId;
    a.kind =
        q.value(3).toString() == QLatin1String("REQUEUE") ? ActionKind::Requeue : ActionKind::Fail;
    a.jobType = q.value(4).toString();
    a.queue = q.value(5).toString();
    a.jobId = q.value(6).toString();
    a.jobName = q.value(7).toString();
    a.reason = q.value(8).toString();
    a.precondition =
        Precondition{q.value(9).toString(), q.value(10).toString(), q.value(11).toLongLong()};
    a.heldReason = q.value(12).toString();
    h.heldLimit = q.value(13).toString();
    h.runId = q.value(14).toString();
    h.heldAt = utcFromEpochMs(q.value(15));
    h.lastRunId = q.value(16).toString();
    h.lastSeenAt = utcFromEpochMs(q.value(17));
    h.state = heldStateNamed(q.value(18).toString()).value_or(HeldState::Held);
    h.stateBy = q.value(19).toString();
    h.stateAt = utcFromEpochMs(q.value(20));
    h.stateDetail = q.value(21).toString();
    a.policy = h.heldLimit == QLatin1String("policy") ? Policy::Approve : Policy::Auto;
    return h;
}

// One statement carries a whole slice as one JSON parameter (json_to_recordset): a run that
// holds 20,000 actions writes them in a few dozen statements, not 20,000 round trips, and
// never builds the whole set as JSON at once (a mass hold after a data loss is 100,000 rows).
constexpr qsizetype kHeldSlice = 5000;

// PostgreSQL's text cannot hold NUL, which JSON would carry as \u0000.
QString withoutNul(const QString &s)
{
    if (!s.contains(QChar(0)))
        return s;
    return QString(s).remove(QChar(0));
}

QString jsonText(const QJsonArray &rows)
{
    return QString::fromUtf8(QJsonDocument(rows).toJson(QJsonDocument::Compact));
}

// Appends one event per entry of `ids` (a JSON array of {id, detail}) in state `state`.
bool appendEvents(QSqlQuery &q, const QJsonArray &rows, const QString &state, const Actor &by)
{
    if (rows.isEmpty())
        return true;
    return execInline(
        q,
        QStringLiteral(
            "INSERT INTO reclaim.held_event (held_id, state, actor_kind, actor, run_id, detail) "
            "SELECT x.id, ?, ?, ?, ?, x.detail FROM json_to_recordset(?::json) AS x(id bigint, "
            "detail text)"),
        {state, sqlText(by.kind), sqlText(actorName(by)), sqlText(by.runId), jsonText(rows)});
}

} // namespace

QStringList heldActionSchemaStatements()
{
    return {
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.held_action ("
                       " id bigserial PRIMARY KEY,"
                       " domain text NOT NULL,"
                       " row_id text NOT NULL,"
                       " kind text NOT NULL,"
                       " job_type text NOT NULL DEFAULT '',"
                       " queue text NOT NULL DEFAULT '',"
                       " job_id text NOT NULL DEFAULT '',"
                       " job_name text NOT NULL DEFAULT '',"
                       " reason text NOT NULL,"
                       " observed_status text NOT NULL,"
                       " observed_updated_at text NOT NULL,"
                       " generation bigint NOT NULL,"
                       " held_reason text NOT NULL,"
                       " held_limit text NOT NULL,"
                       " run_id text NOT NULL,"
                       " held_at timestamptz NOT NULL DEFAULT now(),"
                       " last_run_id text NOT NULL,"
                       " last_seen_at timestamptz NOT NULL DEFAULT now(),"
                       " state text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'approved', "
                       "'rejected', 'superseded', 'executed')),"
                       " state_by text NOT NULL DEFAULT '',"
                       " state_at timestamptz NOT NULL DEFAULT now(),"
                       " state_detail text NOT NULL DEFAULT '')"),
        // At most one open entry per row: a row is held once, whoever holds it.
        QStringLiteral("CREATE UNIQUE INDEX IF NOT EXISTS held_action_open_idx ON "
                       "reclaim.held_action (domain, row_id) WHERE state IN ('held', 'approved')"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.held_event ("
                       " id bigserial PRIMARY KEY,"
                       " held_id bigint NOT NULL REFERENCES reclaim.held_action (id),"
                       " at timestamptz NOT NULL DEFAULT now(),"
                       " state text NOT NULL,"
                       " actor_kind text NOT NULL,"
                       " actor text NOT NULL,"
                       " run_id text NOT NULL,"
                       " detail text NOT NULL DEFAULT '')"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS held_event_held_idx ON reclaim.held_event "
                       "(held_id, at)"),
    };
}

namespace {

// SELECT `columns` of the entries `filter` matches (and `more`), oldest first, into `q`: false
// when Reclaim's schema does not exist (nothing is held), an error when it could not be read.
Expected<bool, StoreError> selectHeld(PgConnection &conn, QSqlQuery &q, const QString &columns,
                                      const HeldFilter &filter, const QString &more = {})
{
    q.setForwardOnly(true);
    const auto schema = conn.hasReclaimTable(QStringLiteral("held_action"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema)
        return false;
    QStringList where;
    QVariantList binds;
    if (!filter.domain.isEmpty()) {
        where << QStringLiteral("domain = ?");
        binds << filter.domain;
    }
    if (filter.kind) {
        where << QStringLiteral("kind = ?");
        binds << actionKindName(*filter.kind);
    }
    if (!filter.ids.isEmpty()) {
        QJsonArray ids;
        for (qint64 id : filter.ids)
            ids.append(id);
        where << QStringLiteral("id IN (SELECT json_array_elements_text(?::json)::bigint)");
        binds << jsonText(ids);
    }
    if (filter.openOnly)
        where << QStringLiteral("state IN ('held', 'approved')");
    if (!more.isEmpty())
        where << more;
    // One round trip (a prepared statement costs three): an approval reads 1,000 at a time.
    if (!execInline(q,
                    QStringLiteral("SELECT %1 FROM reclaim.held_action%2 ORDER BY held_at, id")
                        .arg(columns, where.isEmpty() ? QString()
                                                      : QStringLiteral(" WHERE ") +
                                                            where.join(QStringLiteral(" AND "))),
                    binds))
        return unexpected(conn.failure(QStringLiteral("reading the held actions"), q));
    return true;
}

} // namespace

Expected<QList<HeldAction>, StoreError> readHeldActions(PgConnection &conn,
                                                        const HeldFilter &filter)
{
    QSqlQuery q(conn.database());
    const auto selected = selectHeld(conn, q, kColumns, filter);
    if (!selected)
        return unexpected(selected.error());
    QList<HeldAction> out;
    while (*selected && q.next())
        out << heldFrom(q);
    return out;
}

Expected<QList<qint64>, StoreError> readIdsHeldNow(PgConnection &conn, const HeldFilter &filter)
{
    QSqlQuery q(conn.database());
    const auto selected =
        selectHeld(conn, q, QStringLiteral("id"), filter, QStringLiteral("state = 'held'"));
    if (!selected)
        return unexpected(selected.error());
    QList<qint64> out;
    while (*selected && q.next())
        out << q.value(0).toLongLong();
    return out;
}

Expected<QList<HeldGroup>, StoreError> readHeldGroups(PgConnection &conn)
{
    const auto schema = conn.hasReclaimTable(QStringLiteral("held_action"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema)
        return QList<HeldGroup>();
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT domain, kind, held_limit, count(*), min(held_at) FROM "
                               "reclaim.held_action WHERE state = 'held' GROUP BY domain, kind, "
                               "held_limit ORDER BY domain, kind, held_limit")))
        return unexpected(conn.failure(QStringLiteral("counting the held actions"), q));
    QList<HeldGroup> out;
    while (q.next())
        out << HeldGroup{q.value(0).toString(),
                         q.value(1).toString() == QLatin1String("REQUEUE") ? ActionKind::Requeue
                                                                           : ActionKind::Fail,
                         q.value(2).toString(), q.value(3).toInt(),
                         q.value(4).toDateTime().toUTC()};
    return out;
}

Expected<QHash<QString, qint64>, StoreError>
writeHeldSync(PgConnection &conn, const QString &domain, const HeldSyncPlan &plan, const Actor &run)
{
    QSqlDatabase db = conn.database();
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(
            conn.failure(QStringLiteral("beginning to record the held actions of %1").arg(domain)));
    auto fail = [&](const QString &what) {
        StoreError e = conn.failure(what, q);
        db.rollback();
        return unexpected(e);
    };
    // 1. Settle what moved on, each only while it is still held.
    for (const HeldState to : {HeldState::Superseded, HeldState::Executed, HeldState::Rejected}) {
        QList<const HeldTransition *> moving;
        for (const HeldTransition &t : plan.settled)
            if (t.to == to)
                moving << &t;
        for (qsizetype at = 0; at < moving.size(); at += kHeldSlice) {
            QJsonArray rows;
            for (const HeldTransition *t : moving.mid(at, kHeldSlice))
                rows.append(QJsonObject{{QStringLiteral("id"), t->id},
                                        {QStringLiteral("detail"), t->detail}});
            if (!execInline(
                    q,
                    QStringLiteral(
                        "UPDATE reclaim.held_action h SET state = ?, state_by = ?, state_at = "
                        "now(), state_detail = x.detail FROM json_to_recordset(?::json) AS x(id "
                        "bigint, detail text) WHERE h.id = x.id AND h.domain = ? AND h.state = "
                        "'held' RETURNING h.id, x.detail"),
                    {heldStateName(to), sqlText(actorName(run)), jsonText(rows), domain}))
                return fail(QStringLiteral("settling the held actions of %1").arg(domain));
            QJsonArray done;
            while (q.next())
                done.append(QJsonObject{{QStringLiteral("id"), q.value(0).toLongLong()},
                                        {QStringLiteral("detail"), q.value(1).toString()}});
            if (!appendEvents(q, done, heldStateName(to), run))
                return fail(QStringLiteral("recording the settled held actions of %1").arg(domain));
        }
    }
    QHash<QString, qint64> ids;
    // 2. Keep what this run held the same way: seen again, reason refreshed, no new entry.
    for (qsizetype at = 0; at < plan.kept.size(); at += kHeldSlice) {
        QJsonArray rows;
        for (const HeldKept &k : plan.kept.mid(at, kHeldSlice))
            rows.append(QJsonObject{{QStringLiteral("id"), k.id},
                                    {QStringLiteral("reason"), k.heldReason},
                                    {QStringLiteral("lim"), k.heldLimit}});
        if (!execInline(
                q,
                QStringLiteral(
                    "UPDATE reclaim.held_action h SET last_run_id = ?, last_seen_at = now(), "
                    "held_reason = x.reason, held_limit = x.lim FROM json_to_recordset(?::json) "
                    "AS x(id bigint, reason text, lim text) WHERE h.id = x.id AND h.state = "
                    "'held' RETURNING h.row_id, h.id"),
                {sqlText(run.runId), jsonText(rows)}))
            return fail(QStringLiteral("confirming the held actions of %1").arg(domain));
        while (q.next())
            ids.insert(q.value(0).toString(), q.value(1).toLongLong());
    }
    // 3. Hold what is new. A row already open (an approver is running it now, or another
    // runner just held it) is left to that entry: ON CONFLICT DO NOTHING.
    for (qsizetype at = 0; at < plan.toHold.size(); at += kHeldSlice) {
        QJsonArray rows;
        for (const HeldNew &n : plan.toHold.mid(at, kHeldSlice)) {
            const Action &a = *n.action;
            rows.append(QJsonObject{{QStringLiteral("row_id"), a.rowId},
                                    {QStringLiteral("kind"), actionKindName(a.kind)},
                                    {QStringLiteral("job_type"), a.jobType},
                                    {QStringLiteral("queue"), a.queue},
                                    {QStringLiteral("job_id"), a.jobId},
                                    {QStringLiteral("job_name"), a.jobName},
                                    {QStringLiteral("reason"), a.reason},
                                    {QStringLiteral("status"), a.precondition.status},
                                    {QStringLiteral("updated_at"), a.precondition.updatedAtText},
                                    {QStringLiteral("generation"), a.precondition.generation},
                                    {QStringLiteral("held_reason"), a.heldReason},
                                    {QStringLiteral("held_limit"), n.heldLimit}});
        }
        const QString insert = QStringLiteral(
            "INSERT INTO reclaim.held_action (domain, row_id, kind, job_type, queue, job_id, "
            "job_name, reason, observed_status, observed_updated_at, generation, held_reason, "
            "held_limit, run_id, last_run_id, state_by) SELECT ?, x.row_id, x.kind, x.job_type, "
            "x.queue, x.job_id, x.job_name, x.reason, x.status, x.updated_at, x.generation, "
            "x.held_reason, x.held_limit, ?, ?, ? FROM json_to_recordset(?::json) AS x(row_id "
            "text, kind text, job_type text, queue text, job_id text, job_name text, reason text, "
            "status text, updated_at text, generation bigint, held_reason text, held_limit text) "
            "ON CONFLICT (domain, row_id) WHERE state IN ('held', 'approved') DO NOTHING "
            "RETURNING row_id, id, held_reason");
        if (!execInline(q, insert,
                        {domain, sqlText(run.runId), sqlText(run.runId), sqlText(actorName(run)),
                         jsonText(rows)}))
            return fail(QStringLiteral("holding the actions of %1").arg(domain));
        QJsonArray held;
        while (q.next()) {
            ids.insert(q.value(0).toString(), q.value(1).toLongLong());
            held.append(QJsonObject{{QStringLiteral("id"), q.value(1).toLongLong()},
                                    {QStringLiteral("detail"), q.value(2).toString()}});
        }
        if (!appendEvents(q, held, heldStateName(HeldState::Held), run))
            return fail(QStringLiteral("recording the held actions of %1").arg(domain));
    }
    if (!db.commit())
        return unexpected(
            conn.failure(QStringLiteral("committing the held actions of %1").arg(domain)));
    return ids;
}

Expected<QSet<qint64>, StoreError> writeHeldMoves(PgConnection &conn, HeldState from,
                                                  const QList<HeldSettle> &moves, const Actor &by)
{
    QSqlQuery q(conn.database());
    QSet<qint64> moved;
    // The move and its events in one statement: each slice is all or nothing on its own, and a
    // slice that failed leaves the earlier ones moved, which the caller is told by the error.
    const QString sql = QStringLiteral(
        "WITH x AS (SELECT * FROM json_to_recordset(?::json) AS x(id bigint, state text, detail "
        "text)), moved AS (UPDATE reclaim.held_action h SET state = x.state, state_by = ?, "
        "state_at = now(), state_detail = x.detail FROM x WHERE h.id = x.id AND h.state = ? "
        "RETURNING h.id, x.state, x.detail), ev AS (INSERT INTO reclaim.held_event (held_id, "
        "state, actor_kind, actor, run_id, detail) SELECT id, state, ?, ?, ?, detail FROM moved) "
        "SELECT id FROM moved");
    for (qsizetype at = 0; at < moves.size(); at += kHeldSlice) {
        // Written as text directly: as QJsonObjects, 5,000 moves cost more to build than the
        // statement took to run.
        JsonWriter rows;
        rows.beginArray();
        const qsizetype end = qMin(moves.size(), at + kHeldSlice);
        for (qsizetype i = at; i < end; ++i) {
            const HeldSettle &m = moves.at(i);
            rows.beginObject()
                .member("id"_L1, m.id)
                .member("state"_L1, heldStateName(m.to))
                .member("detail"_L1, withoutNul(m.detail))
                .endObject();
        }
        rows.endArray();
        if (!execInline(q, sql,
                        {QString::fromUtf8(rows.data()), sqlText(actorName(by)),
                         heldStateName(from), sqlText(by.kind), sqlText(actorName(by)),
                         sqlText(by.runId)}))
            return unexpected(
                conn.failure(QStringLiteral("moving %1 held actions out of %2 (%3 moved before)")
                                 .arg(end - at)
                                 .arg(heldStateName(from))
                                 .arg(moved.size()),
                             q));
        while (q.next())
            moved.insert(q.value(0).toLongLong());
    }
    return moved;
}

Expected<QList<HeldAction>, StoreError> takeHeld(PgConnection &conn, const QList<qint64> &ids,
                                                 HeldState to, const QString &detail,
                                                 const Actor &by)
{
    QList<HeldAction> taken;
    const auto schema = conn.hasReclaimTable(QStringLiteral("held_action"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema || ids.isEmpty())
        return taken;
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    // The move and its events in one statement, as writeHeldMoves(); the entries moved come
    // back whole, in the columns readHeldActions() reads.
    const QString sql =
        QStringLiteral(
            "WITH x AS (SELECT DISTINCT id FROM json_array_elements_text(?::json) AS x(id)), "
            "moved AS (UPDATE reclaim.held_action h SET state = ?, state_by = ?, state_at = "
            "now(), state_detail = ? FROM x WHERE h.id = x.id::bigint AND h.state = 'held' "
            "RETURNING h.*), ev AS (INSERT INTO reclaim.held_event (held_id, state, actor_kind, "
            "actor, run_id, detail) SELECT id, state, ?, ?, ?, state_detail FROM moved) "
            "SELECT %1 FROM moved ORDER BY held_at, id")
            .arg(kColumns);
    for (qsizetype at = 0; at < ids.size(); at += kHeldSlice) {
        JsonWriter slice;
        slice.beginArray();
        for (qsizetype i = at; i < qMin(ids.size(), at + kHeldSlice); ++i)
            slice.value(ids.at(i));
        slice.endArray();
        if (!execInline(q, sql,
                        {QString::fromUtf8(slice.data()), heldStateName(to), sqlText(actorName(by)),
                         sqlText(withoutNul(detail)), sqlText(by.kind), sqlText(actorName(by)),
                         sqlText(by.runId)}))
            return unexpected(
                conn.failure(QStringLiteral("moving %1 held actions to %2 (%3 moved before)")
                                 .arg(qMin(ids.size(), at + kHeldSlice) - at)
                                 .arg(heldStateName(to))
                                 .arg(taken.size()),
                             q));
        while (q.next())
            taken << heldFrom(q);
    }
    return taken;
}

} // namespace reclaim
