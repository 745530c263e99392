#include "postgres/rejectionlog.h"

#include "postgres/auditlog.h"
#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"
#include "util/sqlinline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

QStringList rejectionSchemaStatements()
{
    return {
        // One row per rejection; undoing it fills undone_*, so the history stays whole.
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.rejection ("
                       " id bigserial PRIMARY KEY,"
                       " domain text NOT NULL,"
                       " row_id text NOT NULL,"
                       " action text NOT NULL,"
                       " observed_status text NOT NULL,"
                       " observed_updated_at text NOT NULL,"
                       " rejected_by text NOT NULL,"
                       " rejected_at timestamptz NOT NULL DEFAULT now(),"
                       " undone_by text,"
                       " undone_at timestamptz)"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS rejection_active_idx ON reclaim.rejection "
                       "(domain, row_id) WHERE undone_at IS NULL"),
    };
}

Expected<QList<Rejection>, StoreError> readActiveRejections(PgConnection &conn,
                                                            const QString &domain)
{
    const auto schema = conn.hasReclaimTable(QStringLiteral("rejection"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema)
        return QList<Rejection>();
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT row_id, observed_status, observed_updated_at, rejected_by, "
                             "rejected_at FROM reclaim.rejection WHERE domain = ? AND "
                             "undone_at IS NULL"));
    q.addBindValue(domain);
    if (!q.exec())
        return unexpected(
            conn.failure(QStringLiteral("reading the rejections of %1").arg(domain), q));
    QList<Rejection> out;
    while (q.next())
        out << Rejection{domain,
                         q.value(0).toString(),
                         q.value(1).toString(),
                         q.value(2).toString(),
                         q.value(3).toString(),
                         q.value(4).toDateTime().toUTC()};
    return out;
}

Expected<Rejection, StoreError> writeRejection(PgConnection &conn, const Action &a,
                                               const Actor &actor)
{
    QSqlDatabase db = conn.database();
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(conn.failure(QStringLiteral("beginning the rejection of %1").arg(a.id)));
    auto fail = [&](const QString &what) {
        StoreError e = conn.failure(what, q);
        db.rollback();
        return unexpected(e);
    };
    Rejection r{a.domain,         a.rowId, a.precondition.status, a.precondition.updatedAtText,
                actorName(actor), {}};
    q.prepare(QStringLiteral(
        "INSERT INTO reclaim.rejection (domain, row_id, action, observed_status, "
        "observed_updated_at, rejected_by) VALUES (?, ?, ?, ?, ?, ?) RETURNING rejected_at"));
    for (const QVariant &v :
         QVariantList{sqlText(a.domain), sqlText(a.rowId), actionKindName(a.kind),
                      sqlText(r.status), sqlText(r.updatedAtText), sqlText(r.by)})
        q.addBindValue(v);
    if (!q.exec() || !q.next())
        return fail(QStringLiteral("recording the rejection of %1").arg(a.id));
    r.at = q.value(0).toDateTime().toUTC();
    const QString detail =
        QStringLiteral("rejected by %1; not offered again while the row stays %2, updatedAt %3")
            .arg(r.by, r.status, r.updatedAtText);
    if (!appendAudit(q, a, ActionResult::Rejected, detail, actor))
        return fail(QStringLiteral("writing the audit row of the rejection of %1").arg(a.id));
    if (!db.commit())
        return unexpected(conn.failure(QStringLiteral("committing the rejection of %1").arg(a.id)));
    return r;
}

Expected<int, StoreError> writeRejections(PgConnection &conn, const QList<const Action *> &actions,
                                          const Actor &actor)
{
    // A misspelt queue name holds every row of its domain: on-call rejects 20,000 of them at
    // once, in a few statements rather than 20,000 transactions. The audit detail is the one
    // writeRejection writes.
    constexpr qsizetype kSlice = 5000;
    const QString sql = QStringLiteral(
        "WITH x AS (SELECT * FROM json_to_recordset(?::json) AS x(domain text, row_id text, "
        "action text, status text, updated_at text, generation bigint)), "
        "rej AS (INSERT INTO reclaim.rejection (domain, row_id, action, observed_status, "
        "observed_updated_at, rejected_by) SELECT domain, row_id, action, status, updated_at, ? "
        "FROM x RETURNING 1), "
        "aud AS (INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, "
        "generation, domain, row_id, action, observed_status, observed_updated_at, result, "
        "detail) SELECT ?, ?, ?, ?, generation, domain, row_id, action, status, updated_at, ?, "
        "'rejected by ' || ? || '; not offered again while the row stays ' || status || "
        "', updatedAt ' || updated_at FROM x) "
        "SELECT count(*) FROM rej");
    const QString by = actorName(actor);
    QSqlQuery q(conn.database());
    int recorded = 0;
    for (qsizetype at = 0; at < actions.size(); at += kSlice) {
        QJsonArray rows;
        for (const Action *a : actions.mid(at, kSlice))
            rows.append(QJsonObject{
                {QStringLiteral("domain"), QString(a->domain).remove(QChar(0))},
                {QStringLiteral("row_id"), QString(a->rowId).remove(QChar(0))},
                {QStringLiteral("action"), actionKindName(a->kind)},
                {QStringLiteral("status"), QString(a->precondition.status).remove(QChar(0))},
                {QStringLiteral("updated_at"),
                 QString(a->precondition.updatedAtText).remove(QChar(0))},
                {QStringLiteral("generation"), a->precondition.generation}});
        const QString json = QString::fromUtf8(QJsonDocument(rows).toJson(QJsonDocument::Compact));
        if (!execInline(q, sql,
                        {json, sqlText(by), sqlText(actor.runId), sqlText(actor.kind),
                         sqlText(actor.host), sqlText(actor.user),
                         actionResultName(ActionResult::Rejected), sqlText(by)}) ||
            !q.next())
            return unexpected(
                conn.failure(QStringLiteral("recording %1 rejections (%2 recorded before)")
                                 .arg(rows.size())
                                 .arg(recorded),
                             q));
        recorded += q.value(0).toInt();
    }
    return recorded;
}

Expected<int, StoreError> writeRejectionUndo(PgConnection &conn, const Action &a,
                                             const Actor &actor)
{
    QSqlDatabase db = conn.database();
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(
            conn.failure(QStringLiteral("beginning the undo of the rejection of %1").arg(a.id)));
    auto fail = [&](const QString &what) {
        StoreError e = conn.failure(what, q);
        db.rollback();
        return unexpected(e);
    };
    const QString by = actorName(actor);
    q.prepare(QStringLiteral("UPDATE reclaim.rejection SET undone_by = ?, undone_at = now() "
                             "WHERE domain = ? AND row_id = ? AND undone_at IS NULL"));
    q.addBindValue(sqlText(by));
    q.addBindValue(sqlText(a.domain));
    q.addBindValue(sqlText(a.rowId));
    if (!q.exec())
        return fail(QStringLiteral("undoing the rejection of %1").arg(a.id));
    const int undone = q.numRowsAffected();
    if (undone > 0 &&
        !appendAudit(
            q, a, rejectionUndoneResultName(),
            QStringLiteral("rejection undone by %1: offered again from the next run").arg(by),
            actor))
        return fail(QStringLiteral("writing the audit row of the undo of %1").arg(a.id));
    if (!db.commit())
        return unexpected(
            conn.failure(QStringLiteral("committing the undo of the rejection of %1").arg(a.id)));
    return undone;
}

} // namespace reclaim
