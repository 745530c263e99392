// One statement, one round trip: `?` placeholders filled in with the driver's own literals and
// the statement sent as a simple query.
//
// Why not QSqlQuery::prepare + addBindValue: for a statement prepared afresh, QPSQL sends
// PREPARE, then EXECUTE with the values already formatted into its text by the driver's
// formatValue(), then DEALLOCATE: three round trips for one statement. A mass recovery runs a few
// statements per batch of hundreds of rows, so those round trips were most of its PostgreSQL
// traffic. The values are formatted by the same driver function, so they are quoted exactly as
// before; only the PREPARE and DEALLOCATE go.
#pragma once

#include <QString>
#include <QVariantList>

class QSqlQuery;

namespace reclaim {

// `sql` with each `?` outside quoted literals and identifiers replaced, in order, by the driver's
// literal for the matching value (a null value is NULL). Empty when the counts differ: a
// programming error, never sent.
QString inlineValues(const QSqlQuery &q, const QString &sql, const QVariantList &values);

// Runs inlineValues(q, sql, values) on `q` (which keeps its forward-only setting); false on a
// placeholder count mismatch or when the statement fails (q.lastError() says why).
bool execInline(QSqlQuery &q, const QString &sql, const QVariantList &values);

} // namespace reclaim
