// What planning reads for a domain's orphans, in sets (#30): the retry budget used and the
// restore query's payloads for a batch of rows in one statement each, the ids passed as one
// JSON array (json_array_elements_text), so the round trips do not grow with the orphans.
#pragma once

#include "config/domainconfig.h"
#include "ports/jobstore.h"

namespace reclaim {

class PgConnection;

// "row id" → requeues within the domain's window, for the rows that have any.
Expected<QHash<QString, int>, StoreError>
readRecentRequeues(PgConnection &conn, const DomainConfig &domain, const QStringList &rowIds);

// The operator's restore query run once over every id: each id's first row's first column, or
// nothing. The statement wraps the query as written, its :jobId standing for each id in turn
// (LATERAL): the same answer it gives for one id, provided the query accepts a text id the way
// it accepts a bound parameter. An error is the whole statement's (the caller then asks row by
// row, so one row's failure stays that row's). One answer per id, in the order of `rowIds`.
Expected<QList<std::optional<QByteArray>>, StoreError>
readRestorePayloads(PgConnection &conn, const DomainConfig &domain, const RestoreRule &rule,
                    const QStringList &rowIds);

// The statement readRestorePayloads() prepares for `rule` (tests look at it).
QString restoreSetStatement(const RestoreRule &rule);

} // namespace reclaim
