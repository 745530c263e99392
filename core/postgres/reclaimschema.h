// Reclaim's own small schema in the application's PostgreSQL: fencing, audit, retry budget.
// It never touches the application's tables' definitions.
#pragma once

#include <QStringList>

namespace reclaim {

// Idempotent statements, applied in order inside one transaction.
QStringList reclaimSchemaStatements();

} // namespace reclaim
