// Operators' rejections in reclaim.rejection: recorded with their audit row, read by the planner
// so that a rejected action is not offered again while its row is unchanged, and undone.
#pragma once

#include "domain/action.h"
#include "ports/jobstore.h"

#include <QStringList>

namespace reclaim {

class PgConnection;

// Idempotent statements for the rejection table (part of Reclaim's schema, see reclaimschema).
QStringList rejectionSchemaStatements();

Expected<QList<Rejection>, StoreError> readActiveRejections(PgConnection &conn,
                                                            const QString &domain);
Expected<Rejection, StoreError> writeRejection(PgConnection &conn, const Action &action,
                                               const Actor &actor);
// Many rejections with their audit rows, one statement (all or nothing) per slice of 5,000:
// what `writeRejection` records for each. How many were recorded.
Expected<int, StoreError> writeRejections(PgConnection &conn, const QList<const Action *> &actions,
                                          const Actor &actor);
Expected<int, StoreError> writeRejectionUndo(PgConnection &conn, const Action &action,
                                             const Actor &actor);

} // namespace reclaim
