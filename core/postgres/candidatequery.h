// The candidate query of one domain: rows in a candidate status, older than the threshold,
// oldest first, matching "status equals, then a time range" so the composite index serves it.
#pragma once

#include "config/domainconfig.h"
#include "domain/candidate.h"
#include "ports/jobstore.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <optional>

namespace reclaim {

class PgConnection;

// The statement exactly as readCandidates() prepares it, with its bind values in order (the
// benchmark and the plan test EXPLAIN this very statement).
struct CandidateQuery
{
    QString sql;
    QVariantList binds;
};
CandidateQuery candidateQuery(const DomainConfig &domain, RowJson rowJson);

Expected<QList<Candidate>, StoreError> readCandidates(PgConnection &conn,
                                                      const DomainConfig &domain, RowJson rowJson);

// One row by id, whatever its status and age, read as a candidate would be.
Expected<std::optional<Candidate>, StoreError>
readRowById(PgConnection &conn, const DomainConfig &domain, const QString &rowId);

// Many rows by id in one statement, by id. `idType` is the id column's SQL type (format_type):
// the ids travel as one JSON array and are cast back, so the primary key serves the read.
Expected<QHash<QString, Candidate>, StoreError> readRowsById(PgConnection &conn,
                                                             const DomainConfig &domain,
                                                             const QString &idType,
                                                             const QStringList &rowIds);

} // namespace reclaim
