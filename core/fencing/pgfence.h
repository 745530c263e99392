// The PostgreSQL side of fencing (SPEC §4): one row holding the highest lock generation that has
// started a run. A starting run raises it; every write of a run first locks it FOR SHARE, in the
// write's own transaction, and goes ahead only while it still holds that run's generation — so
// a run that lost its lock cannot write late, however long it was paused.
#pragma once

#include <QStringList>
#include <optional>

class QSqlQuery;

namespace reclaim::pgfence {

// The fence table and its one row (idempotent; part of Reclaim's schema).
QStringList schemaStatements();

// Records `generation` as the highest that started a run. Nullopt when the statement failed
// (the query's lastError says why); false when a higher generation already started one.
std::optional<bool> start(QSqlQuery &query, qint64 generation);

// Inside a write's transaction: the highest generation, locked FOR SHARE so that a newer run
// recording its start waits for this write, or this write sees the newer generation. Nullopt
// when the statement failed.
std::optional<qint64> holdForWrite(QSqlQuery &query);

} // namespace reclaim::pgfence
