// The PostgreSQL items of `reclaim --check`: reachable, version, TLS, Reclaim's schema, and per
// domain the role's privileges, whether the candidate query uses its composite index, and an
// estimate of its candidate rows. Privileges are read (has_*_privilege), never tried by a write.
#pragma once

#include "config/reclaimconfig.h"
#include "postgres/pgconnection.h"
#include "preflight/checkreport.h"

#include <memory>

namespace reclaim {

// The item ids checkPostgres() adds, in order, whatever the outcome.
QStringList postgresCheckIds(const ReclaimConfig &config);

// Adds the PostgreSQL items. Returns the connection for the items that follow (the fence), or
// null when PostgreSQL could not be reached (every PostgreSQL item then fails "could not check").
std::unique_ptr<PgConnection> checkPostgres(const ReclaimConfig &config, CheckReport &report);

// How long the PostgreSQL items of one check may take together before a client-side watchdog
// shuts the connection (PgWatchdog): a frozen server cannot hang the check.
std::chrono::milliseconds preflightPostgresBudget(const RunSettings &run);

// "CREATE INDEX CONCURRENTLY ... ON <table> (status[, type], "updatedAt")" for a domain.
QString compositeIndexStatement(const DomainConfig &domain);

} // namespace reclaim
