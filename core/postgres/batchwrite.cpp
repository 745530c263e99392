#include "postgres/batchwrite.h"

#include "domain/jsonwriter.h"
#include "fencing/pgfence.h"
#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"
#include "util/sqlinline.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

using namespace Qt::Literals::StringLiterals;

// A batch's rows as one JSON parameter (json_to_recordset, json_array_elements_text), written
// as text directly: building 1,000 rows as QJsonValues first cost more than the statement.
QString jsonParameter(const JsonWriter &w)
{
    return QString::fromUtf8(w.data());
}

// PostgreSQL's text cannot hold NUL, which JSON would carry as \u0000.
QString jsonText(const QString &s)
{
    if (!s.contains(QChar(0)))
        return s;
    QString out = s;
    out.remove(QChar(0));
    return out;
}

// What a completed audit row says, as the one-action write says it.
QString auditDetail(const Action &a, const WriteOutcome &out)
{
    return out.parent.attempted ? QStringLiteral("parent %1.%2 rows=%3")
                                      .arg(out.parent.table, out.parent.column)
                                      .arg(out.parent.rows)
                                : a.reason;
}

// The conditional UPDATE of every row in `batch` (one kind), answering which of them it changed
// (by place in `batch`: the server returns each changed row's place, so no row id is read back).
std::optional<QList<bool>> writeRows(QSqlQuery &q, const DomainConfig &d, const RowKeyTypes &t,
                                     ActionKind kind, const QList<const Action *> &batch)
{
    const JobColumns &c = d.columns;
    QStringList sets{QStringLiteral("%1 = ?").arg(quoteIdentifier(c.status))};
    if (kind == ActionKind::Requeue && !c.progress.isEmpty())
        sets << QStringLiteral("%1 = 0").arg(quoteIdentifier(c.progress));
    if (!c.error.isEmpty())
        sets << (kind == ActionKind::Requeue
                     ? QStringLiteral("%1 = NULL").arg(quoteIdentifier(c.error))
                     : QStringLiteral("%1 = w.reason").arg(quoteIdentifier(c.error)));
    sets << QStringLiteral("%1 = now()").arg(quoteIdentifier(c.updatedAt));
    const QString sql =
        QStringLiteral("UPDATE %1 AS t SET %2 FROM ROWS FROM (json_to_recordset(?::json) AS "
                       "(id text, status text, updated_at text, reason text)) WITH ORDINALITY "
                       "AS w(id, status, updated_at, reason, n) WHERE t.%3 = w.id::%4 "
                       "AND t.%5 = w.status::%6 AND t.%7 = w.updated_at::%8 "
                       "RETURNING w.n")
            .arg(quoteTableName(d.table), sets.join(QStringLiteral(", ")), quoteIdentifier(c.id),
                 t.id, quoteIdentifier(c.status), t.status, quoteIdentifier(c.updatedAt),
                 t.updatedAt);
    JsonWriter rows;
    rows.beginArray();
    for (const Action *a : batch) {
        rows.beginObject()
            .member("id"_L1, jsonText(a->rowId))
            .member("status"_L1, jsonText(a->precondition.status))
            .member("updated_at"_L1, jsonText(a->precondition.updatedAtText));
        if (kind == ActionKind::Fail) // the error column's text; a requeue clears it
            rows.member("reason"_L1, jsonText(a->reason));
        rows.endObject();
    }
    rows.endArray();
    if (!execInline(
            q, sql,
            {kind == ActionKind::Requeue ? d.queuedStatus : d.failedStatus, jsonParameter(rows)}))
        return std::nullopt;
    QList<bool> changed(batch.size(), false);
    while (q.next()) {
        const qint64 n = q.value(0).toLongLong();
        if (n >= 1 && n <= changed.size())
            changed[n - 1] = true;
    }
    return changed;
}

// The parent of each changed FAIL row under `parent`, set failed only while still in progress.
// Two children of one parent: the first (in batch order) is credited with the change, as it
// would have been one action after the other.
bool cleanUpParents(QSqlQuery &q, const DomainConfig &d, const RowKeyTypes &t,
                    const ParentRule &parent, const QList<const Action *> &children,
                    QHash<const Action *, ParentChange> &changes)
{
    const QString sql =
        QStringLiteral(
            "WITH kids AS (SELECT t.%1::text AS child, t.%2 AS parent FROM %3 AS t WHERE "
            "t.%1 IN (SELECT json_array_elements_text(?::json)::%4)), "
            "upd AS (UPDATE %5 AS p SET %6 = ? WHERE p.%7 IN (SELECT parent FROM kids) AND "
            "p.%6 IN (%8) RETURNING p.%7 AS parent) "
            "SELECT kids.child, upd.parent::text FROM kids JOIN upd ON upd.parent = "
            "kids.parent")
            .arg(quoteIdentifier(d.columns.id), quoteIdentifier(parent.foreignKey),
                 quoteTableName(d.table), t.id, quoteTableName(parent.table),
                 quoteIdentifier(parent.column), quoteIdentifier(parent.idColumn),
                 placeholders(parent.inProgress.size()));
    JsonWriter ids;
    ids.beginArray();
    for (const Action *a : children)
        ids.value(jsonText(a->rowId));
    ids.endArray();
    QVariantList values{jsonParameter(ids), parent.failedValue};
    for (const QString &s : parent.inProgress)
        values << s;
    if (!execInline(q, sql, values))
        return false;
    QHash<QString, QString> parentOf; // child row id -> the parent it changed
    while (q.next())
        parentOf.insert(q.value(0).toString(), q.value(1).toString());
    QSet<QString> credited;
    for (const Action *a : children) {
        ParentChange &change = changes[a];
        change.attempted = true;
        change.table = parent.table;
        change.column = parent.column;
        change.newValue = parent.failedValue;
        const auto it = parentOf.constFind(a->rowId);
        if (it != parentOf.constEnd() && !credited.contains(*it)) {
            credited.insert(*it);
            change.rows = 1;
            change.parentId = *it;
        }
    }
    return true;
}

bool completeAudits(QSqlQuery &q, const QList<const Action *> &actions,
                    const QList<WriteOutcome> &outcomes)
{
    JsonWriter rows;
    rows.beginArray();
    for (qsizetype i = 0; i < actions.size(); ++i)
        rows.beginObject()
            .member("id"_L1, actions.at(i)->auditId)
            .member("result"_L1, actionResultName(outcomes.at(i).result))
            .member("detail"_L1, jsonText(auditDetail(*actions.at(i), outcomes.at(i))))
            .endObject();
    rows.endArray();
    return execInline(q,
                      QStringLiteral("UPDATE reclaim.audit AS a SET result = w.result, detail = "
                                     "w.detail FROM json_to_recordset(?::json) AS w(id bigint, "
                                     "result text, detail text) WHERE a.id = w.id"),
                      {jsonParameter(rows)}) &&
           q.numRowsAffected() == actions.size();
}

} // namespace

Expected<RowKeyTypes, StoreError> readRowKeyTypes(PgConnection &conn, const DomainConfig &d)
{
    QSqlQuery q(conn.database());
    q.prepare(QStringLiteral("SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM "
                             "pg_attribute AS a WHERE a.attrelid = to_regclass(?) AND "
                             "a.attname IN (?, ?, ?) AND NOT a.attisdropped"));
    q.addBindValue(quoteTableName(d.table));
    q.addBindValue(d.columns.id);
    q.addBindValue(d.columns.status);
    q.addBindValue(d.columns.updatedAt);
    if (!q.exec())
        return unexpected(
            conn.failure(QStringLiteral("reading the column types of %1").arg(d.table), q));
    QHash<QString, QString> typeOf;
    while (q.next())
        typeOf.insert(q.value(0).toString(), q.value(1).toString());
    RowKeyTypes t{typeOf.value(d.columns.id), typeOf.value(d.columns.status),
                  typeOf.value(d.columns.updatedAt)};
    if (t.id.isEmpty() || t.status.isEmpty() || t.updatedAt.isEmpty())
        return unexpected(StoreError{
            QStringLiteral("table %1 of domain %2 has no columns %3, %4 and %5 (as configured)")
                .arg(d.table, d.name, d.columns.id, d.columns.status, d.columns.updatedAt)});
    return t;
}

Expected<QList<qint64>, StoreError>
recordIntents(PgConnection &conn, const QList<const Action *> &actions, const Actor &actor)
{
    if (actions.isEmpty())
        return QList<qint64>();
    JsonWriter rows;
    rows.beginArray();
    for (const Action *a : actions)
        rows.beginObject()
            .member("generation"_L1, a->precondition.generation)
            .member("domain"_L1, jsonText(a->domain))
            .member("row_id"_L1, jsonText(a->rowId))
            .member("action"_L1, actionKindName(a->kind))
            .member("status"_L1, jsonText(a->precondition.status))
            .member("updated_at"_L1, jsonText(a->precondition.updatedAtText))
            .member("detail"_L1, jsonText(a->reason))
            .endObject();
    rows.endArray();
    QSqlQuery q(conn.database());
    // Data-modifying CTEs: every row or none, committed by the one statement. The rows are
    // distinct, so (domain, row_id) ties each audit id back to its action, joined on the server:
    // the answer is the action's place in the batch (n) and its audit id. Every requeue takes
    // one use of its row's retry budget, tied to its audit row.
    const QString sql = QStringLiteral(
        "WITH w AS (SELECT * FROM ROWS FROM (json_to_recordset(?::json) AS (generation bigint, "
        "domain text, row_id text, action text, status text, updated_at text, detail text)) WITH "
        "ORDINALITY AS w(generation, domain, row_id, action, status, updated_at, detail, n)), "
        "intent AS (INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, "
        "generation, domain, row_id, action, observed_status, observed_updated_at, result, "
        "detail) SELECT ?, ?, ?, ?, generation, domain, row_id, action, status, updated_at, "
        "'started', detail FROM w RETURNING id, domain, row_id, generation, action), "
        "budget AS (INSERT INTO reclaim.requeue (domain, row_id, generation, audit_id) SELECT "
        "domain, row_id, generation, id FROM intent WHERE action = ?) "
        "SELECT w.n, intent.id FROM intent JOIN w ON w.domain = intent.domain AND w.row_id = "
        "intent.row_id");
    const QString what = QStringLiteral("recording the attempts on %1 rows").arg(actions.size());
    if (!execInline(q, sql,
                    {jsonParameter(rows), sqlText(actor.runId), sqlText(actor.kind),
                     sqlText(actor.host), sqlText(actor.user),
                     actionKindName(ActionKind::Requeue)}))
        return unexpected(conn.failure(what, q));
    QList<qint64> ids(actions.size(), 0);
    while (q.next()) {
        const qint64 n = q.value(0).toLongLong();
        if (n >= 1 && n <= ids.size())
            ids[n - 1] = q.value(1).toLongLong();
    }
    if (ids.contains(0))
        return unexpected(StoreError{what + QStringLiteral(": not every row came back")});
    return ids;
}

Expected<QList<WriteOutcome>, StoreError> writeActions(PgConnection &conn, const DomainConfig &d,
                                                       const RowKeyTypes &types,
                                                       const QList<const Action *> &actions)
{
    QSqlDatabase db = conn.database();
    QSqlQuery q(db);
    const QString what = QStringLiteral("writing %1 rows of %2").arg(actions.size()).arg(d.table);
    if (!db.transaction())
        return unexpected(conn.failure(what));
    auto fail = [&](const QString &step) {
        StoreError e = conn.failure(QStringLiteral("%1 (%2)").arg(what, step), q);
        db.rollback();
        return unexpected(e);
    };

    const std::optional<qint64> highest = pgfence::holdForWrite(q, conn.lockKey());
    if (!highest)
        return fail(QStringLiteral("checking the fence"));
    // Each kind's actions, by place in `actions`.
    QList<qsizetype> byKind[2];
    for (qsizetype i = 0; i < actions.size(); ++i)
        if (actions.at(i)->precondition.generation == *highest)
            byKind[actions.at(i)->kind == ActionKind::Requeue ? 0 : 1] << i;
    QList<bool> changed(actions.size(), false);
    for (const ActionKind kind : {ActionKind::Requeue, ActionKind::Fail}) {
        const QList<qsizetype> &places = byKind[kind == ActionKind::Requeue ? 0 : 1];
        if (places.isEmpty())
            continue;
        QList<const Action *> batch;
        batch.reserve(places.size());
        for (const qsizetype i : places)
            batch << actions.at(i);
        const auto rows = writeRows(q, d, types, kind, batch);
        if (!rows)
            return fail(QStringLiteral("the conditional UPDATE"));
        for (qsizetype k = 0; k < places.size(); ++k)
            changed[places.at(k)] = rows->at(k);
    }
    // Parent cleanup only for FAIL rows that changed, per parent rule.
    QHash<const ParentRule *, QList<const Action *>> childrenOf;
    for (const qsizetype i : byKind[1])
        if (changed.at(i))
            if (const ParentRule *parent = d.parentFor(actions.at(i)->jobType))
                childrenOf[parent] << actions.at(i);
    QHash<const Action *, ParentChange> parents;
    for (auto it = childrenOf.cbegin(); it != childrenOf.cend(); ++it)
        if (!cleanUpParents(q, d, types, *it.key(), it.value(), parents))
            return fail(QStringLiteral("cleaning up %1").arg(it.key()->table));

    QList<WriteOutcome> out;
    out.reserve(actions.size());
    for (qsizetype i = 0; i < actions.size(); ++i) {
        const Action *a = actions.at(i);
        WriteOutcome o;
        if (a->precondition.generation != *highest)
            o.result = ActionResult::Fenced;
        else
            o.result = changed.at(i) ? ActionResult::Applied : ActionResult::Stale;
        o.parent = parents.value(a);
        out << o;
    }
    if (!completeAudits(q, actions, out))
        return fail(QStringLiteral("completing the audit rows"));
    if (!db.commit())
        return unexpected(conn.failure(QStringLiteral("%1 (commit)").arg(what)));
    return out;
}

Expected<std::optional<QList<WriteOutcome>>, StoreError>
readCommittedOutcomes(PgConnection &conn, const QList<const Action *> &actions)
{
    QSqlQuery q(conn.database());
    const QString what = QStringLiteral("reading %1 audit rows again after the connection was lost")
                             .arg(actions.size());
    JsonWriter ids;
    ids.beginArray();
    for (const Action *a : actions)
        ids.value(a->auditId);
    ids.endArray();
    // One statement on its own: FOR SHARE waits (the session's lock_timeout) for a transaction
    // the server is still finishing.
    if (!execInline(q,
                    QStringLiteral("SELECT id, result, detail FROM reclaim.audit WHERE id IN "
                                   "(SELECT json_array_elements_text(?::json)::bigint) FOR SHARE"),
                    {jsonParameter(ids)}))
        return unexpected(conn.failure(what, q));
    QHash<qint64, QPair<QString, QString>> byId;
    while (q.next())
        byId.insert(q.value(0).toLongLong(), {q.value(1).toString(), q.value(2).toString()});
    QList<WriteOutcome> out;
    out.reserve(actions.size());
    bool started = false;
    bool completed = false;
    static const QRegularExpression parentDetail(
        QStringLiteral("^parent (.+)\\.([^.]+) rows=(\\d+)$"));
    for (const Action *a : actions) {
        const auto row = byId.constFind(a->auditId);
        if (row == byId.cend())
            return unexpected(StoreError{
                QStringLiteral("%1: audit row %2 is missing").arg(what).arg(a->auditId)});
        const QString &result = row->first;
        WriteOutcome o;
        if (result == actionResultName(ActionResult::Applied))
            o.result = ActionResult::Applied;
        else if (result == actionResultName(ActionResult::Stale))
            o.result = ActionResult::Stale;
        else if (result == actionResultName(ActionResult::Fenced))
            o.result = ActionResult::Fenced;
        else if (result == QLatin1String("started")) {
            started = true;
            continue;
        } else {
            return unexpected(StoreError{QStringLiteral("%1: audit row %2 reads '%3', which no "
                                                        "batch write leaves")
                                             .arg(what)
                                             .arg(a->auditId)
                                             .arg(result)});
        }
        completed = true;
        if (const auto m = parentDetail.match(row->second); m.hasMatch()) {
            o.parent.attempted = true;
            o.parent.table = m.captured(1);
            o.parent.column = m.captured(2);
            o.parent.rows = m.captured(3).toInt();
        }
        out << o;
    }
    // One transaction wrote them all: all completed, or none.
    if (started && completed)
        return unexpected(StoreError{
            QStringLiteral("%1: some are completed and some are not, which one transaction "
                           "cannot leave")
                .arg(what)});
    if (started)
        return std::optional<QList<WriteOutcome>>();
    return std::optional<QList<WriteOutcome>>(out);
}

bool finishAuditSet(QSqlQuery &q, const QList<const Action *> &actions)
{
    JsonWriter rows;
    rows.beginArray();
    for (const Action *a : actions) {
        const bool release =
            a->result == ActionResult::EnqueueFailed || a->result == ActionResult::Dropped;
        rows.beginObject()
            .member("id"_L1, a->auditId)
            .member("result"_L1, actionResultName(a->result))
            .member("detail"_L1, jsonText(a->resultDetail))
            .member("release"_L1, release ? 1 : 0)
            .endObject();
    }
    rows.endArray();
    const QString sql = QStringLiteral(
        "WITH w AS (SELECT * FROM json_to_recordset(?::json) AS w(id bigint, result text, detail "
        "text, release int)), "
        "done AS (UPDATE reclaim.audit AS a SET result = w.result, detail = w.detail FROM w WHERE "
        "a.id = w.id RETURNING a.id), "
        "freed AS (DELETE FROM reclaim.requeue AS r USING w WHERE w.release = 1 AND r.audit_id = "
        "w.id) "
        "SELECT count(*) FROM done");
    return execInline(q, sql, {jsonParameter(rows)}) && q.next() &&
           q.value(0).toLongLong() == actions.size();
}

} // namespace reclaim
