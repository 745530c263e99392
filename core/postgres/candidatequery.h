// The candidate query of one domain: rows in a candidate status, older than the threshold,
// oldest first, matching "status equals, then a time range" so the composite index serves it.
#pragma once

#include "config/domainconfig.h"
#include "domain/candidate.h"
#include "ports/jobstore.h"

#include <QList>
#include <QString>
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
CandidateQuery candidateQuery(const DomainConfig &domain);

Expected<QList<Candidate>, StoreError> readCandidates(PgConnection &conn,
                                                      const DomainConfig &domain);

// One row by id, whatever its status and age, read as a candidate would be.
Expected<std::optional<Candidate>, StoreError>
readRowById(PgConnection &conn, const DomainConfig &domain, const QString &rowId);

} // namespace reclaim
