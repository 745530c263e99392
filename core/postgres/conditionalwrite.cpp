#include "postgres/conditionalwrite.h"

#include "fencing/pgfence.h"
#include "postgres/auditlog.h"
#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"

#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

// The job row's UPDATE, conditioned on the observed (id, status, updatedAt). The observed
// updatedAt goes back as the column's own text, so the database parses it into the column's
// type with every digit it had. Nullopt when the statement failed.
std::optional<int> writeRow(QSqlQuery &q, const DomainConfig &d, const Action &a)
{
    const JobColumns &c = d.columns;
    QStringList sets{QStringLiteral("%1 = ?").arg(quoteIdentifier(c.status))};
    QVariantList values{a.kind == ActionKind::Requeue ? d.queuedStatus : d.failedStatus};
    if (a.kind == ActionKind::Requeue && !c.progress.isEmpty())
        sets << QStringLiteral("%1 = 0").arg(quoteIdentifier(c.progress));
    if (!c.error.isEmpty()) {
        sets << QStringLiteral("%1 = ?").arg(quoteIdentifier(c.error));
        values << (a.kind == ActionKind::Requeue ? QVariant(QMetaType(QMetaType::QString))
                                                 : QVariant(a.reason));
    }
    sets << QStringLiteral("%1 = now()").arg(quoteIdentifier(c.updatedAt));
    q.prepare(QStringLiteral("UPDATE %1 SET %2 WHERE %3 = ? AND %4 = ? AND %5 = ?")
                  .arg(quoteTableName(d.table), sets.join(QStringLiteral(", ")),
                       quoteIdentifier(c.id), quoteIdentifier(c.status),
                       quoteIdentifier(c.updatedAt)));
    for (const QVariant &v : values)
        q.addBindValue(v);
    q.addBindValue(a.rowId);
    q.addBindValue(a.precondition.status);
    q.addBindValue(a.precondition.updatedAtText);
    if (!q.exec())
        return std::nullopt;
    return q.numRowsAffected();
}

// The parent status that belongs to this kind of job, set to failed only while it is still in
// progress (a READY parent is never demoted). False when the statement failed.
bool cleanUpParent(QSqlQuery &q, const DomainConfig &d, const ParentRule &parent,
                   const QString &rowId, ParentChange &change)
{
    change.attempted = true;
    change.table = parent.table;
    change.column = parent.column;
    change.newValue = parent.failedValue;
    q.prepare(QStringLiteral("UPDATE %1 SET %2 = ? WHERE %3 = (SELECT %4 FROM %5 WHERE %6 = ?) "
                             "AND %2 IN (%7) RETURNING %3::text")
                  .arg(quoteTableName(parent.table), quoteIdentifier(parent.column),
                       quoteIdentifier(parent.idColumn), quoteIdentifier(parent.foreignKey),
                       quoteTableName(d.table), quoteIdentifier(d.columns.id),
                       placeholders(parent.inProgress.size())));
    q.addBindValue(parent.failedValue);
    q.addBindValue(rowId);
    for (const QString &s : parent.inProgress)
        q.addBindValue(s);
    if (!q.exec())
        return false;
    change.rows = q.numRowsAffected();
    if (q.next())
        change.parentId = q.value(0).toString();
    return true;
}

// One requeue counted against the row's retry budget.
bool recordRequeue(QSqlQuery &q, const DomainConfig &d, const Action &a)
{
    q.prepare(QStringLiteral(
        "INSERT INTO reclaim.requeue (domain, row_id, generation) VALUES (?, ?, ?)"));
    q.addBindValue(d.name);
    q.addBindValue(a.rowId);
    q.addBindValue(a.precondition.generation);
    return q.exec();
}

} // namespace

Expected<WriteOutcome, StoreError> writeAction(PgConnection &conn, const DomainConfig &d,
                                               const Action &a, const Actor &actor)
{
    QSqlDatabase db = conn.database();
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(conn.failure(QStringLiteral("beginning the write of %1").arg(a.rowId)));
    auto fail = [&](const QString &what) {
        StoreError e = conn.failure(what, q);
        db.rollback();
        return unexpected(e);
    };

    WriteOutcome out;
    const std::optional<qint64> highest = pgfence::holdForWrite(q, conn.lockKey());
    if (!highest)
        return fail(QStringLiteral("checking the fence"));
    if (*highest != a.precondition.generation) {
        out.result = ActionResult::Fenced;
    } else {
        const std::optional<int> rows = writeRow(q, d, a);
        if (!rows)
            return fail(QStringLiteral("writing %1 row %2").arg(d.table, a.rowId));
        out.result = *rows == 1 ? ActionResult::Applied : ActionResult::Stale;
        // Parent cleanup only after a job write that changed exactly one row.
        const ParentRule *parent = a.kind == ActionKind::Fail ? d.parentFor(a.jobType) : nullptr;
        if (*rows == 1 && parent && !cleanUpParent(q, d, *parent, a.rowId, out.parent))
            return fail(
                QStringLiteral("cleaning up %1 of %2 row %3").arg(parent->table, d.table, a.rowId));
        // The budget use was recorded with the intent, before the enqueue; else record it now.
        if (*rows == 1 && a.kind == ActionKind::Requeue && a.auditId == 0 &&
            !recordRequeue(q, d, a))
            return fail(QStringLiteral("recording the requeue of %1").arg(a.rowId));
    }

    const QString detail = out.parent.attempted ? QStringLiteral("parent %1.%2 rows=%3")
                                                      .arg(out.parent.table, out.parent.column)
                                                      .arg(out.parent.rows)
                                                : a.reason;
    if (a.auditId != 0 ? !finishAudit(q, a.auditId, out.result, detail, false)
                       : !appendAudit(q, a, out.result, detail, actor))
        return fail(QStringLiteral("writing the audit row for %1").arg(a.rowId));
    if (!db.commit())
        return unexpected(conn.failure(QStringLiteral("committing the write of %1").arg(a.rowId)));
    return out;
}

} // namespace reclaim
