// How PostgreSQL plans a domain's candidate query, and whether the plan uses the composite
// (status, ..., updatedAt) index SPEC §5 asks for: shared by `reclaim --check` and the benchmark.
#pragma once

#include "config/domainconfig.h"
#include "postgres/candidatequery.h"
#include "util/expected.h"

#include <QHash>
#include <QJsonObject>
#include <QStringList>

class QSqlDatabase;

namespace reclaim {

struct CandidatePlan
{
    QJsonObject root;         // EXPLAIN's JSON for the statement: {"Plan": {...}, ...}
    QStringList nodeTypes;    // every node of the plan, depth first
    QStringList indexes;      // the indexes the plan's nodes use
    double estimatedRows = 0; // the top node's "Plan Rows"
};

// The candidate query with its bind values written in as literals quoted by the driver:
// PostgreSQL cannot PREPARE an EXPLAIN, and the planner then sees the values a first execution
// sees.
Expected<QString, QString> inlineBinds(const QSqlDatabase &db, const CandidateQuery &query);

// EXPLAIN (<options>) of the candidate query on `db`, e.g. options "FORMAT JSON" or
// "ANALYZE, BUFFERS, FORMAT JSON" (FORMAT JSON is required). The error is the server's.
Expected<CandidatePlan, QString>
explainCandidateQuery(QSqlDatabase &db, const CandidateQuery &query, const QString &options);

// Index name -> its columns in order, for a configured table (`table` or `schema.table`).
Expected<QHash<QString, QStringList>, QString> indexColumns(QSqlDatabase &db, const QString &table);

// The composite index SPEC §5 asks for: status first, updatedAt in it (type between them where
// the domain filters by type).
bool isCompositeIndex(const DomainConfig &domain, const QStringList &columns);

// The first index of `plan` that is composite for `domain` (empty: none is).
QString compositeIndexUsed(const DomainConfig &domain, const CandidatePlan &plan,
                           const QHash<QString, QStringList> &columns);

} // namespace reclaim
