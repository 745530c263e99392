// The PostgreSQL side of fencing (SPEC §4): one row per lock key holding the highest lock
// generation that has started a run under that key. A starting run raises it; every write of a
// run first locks it FOR SHARE, in the write's own transaction, and goes ahead only while it
// still holds that run's generation — so a run that lost its lock cannot write late, however
// long it was paused. Deployments with different lock keys on one database do not fence each
// other.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

class QSqlQuery;

namespace reclaim::pgfence {

// The fence table, keyed by lock key (idempotent; part of Reclaim's schema). The single-row
// table of earlier versions is renamed to reclaim.fence_single for carryOver().
QStringList schemaStatements();

// Inside the migration's transaction, after schemaStatements(): moves the single-row fence of an
// earlier version (if any) to the row of `lockKey`, the one deployment that used it, and drops
// it. False when a statement failed (the query's lastError says why).
bool carryOver(QSqlQuery &query, const QString &lockKey);

// The highest generation that started a run under `lockKey` (0: none). Nullopt on failure.
std::optional<qint64> highest(QSqlQuery &query, const QString &lockKey);

// Records `generation` as the highest that started a run under `lockKey`. Nullopt when the
// statement failed (the query's lastError says why); false when a higher generation already
// started one.
std::optional<bool> start(QSqlQuery &query, qint64 generation, const QString &lockKey);

// Inside a write's transaction: the highest generation under `lockKey` (0 when none), locked FOR
// SHARE so that a newer run recording its start waits for this write, or this write sees the
// newer generation. Nullopt when the statement failed.
std::optional<qint64> holdForWrite(QSqlQuery &query, const QString &lockKey);

} // namespace reclaim::pgfence
