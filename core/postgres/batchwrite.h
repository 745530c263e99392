// The writes of a batch of actions (#30), set-based: every attempt recorded in one statement,
// every conditional row write of a kind in one UPDATE ... FROM json_to_recordset, and every
// audit completion in one more — the same conditions, per row, as the one-action write
// (postgres/conditionalwrite.h), in a handful of round trips per batch instead of a handful per
// action.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "ports/jobstore.h"

#include <QList>
#include <QString>

class QSqlQuery;

namespace reclaim {

class PgConnection;

// The SQL types of a job table's id, status and updatedAt columns (format_type), so text sent
// in a JSON set is cast back to what a bound parameter would have become — an index on the id
// still serves the join, and a uuid or bigint id compares as itself.
struct RowKeyTypes
{
    QString id;
    QString status;
    QString updatedAt;
};

Expected<RowKeyTypes, StoreError> readRowKeyTypes(PgConnection &conn, const DomainConfig &domain);

// One statement, outside any transaction: each action's audit row ("started") and, for a
// requeue, one use of its row's retry budget — all of them or none. The audit ids, in the
// order of `actions`. The actions' rows must be distinct.
Expected<QList<qint64>, StoreError>
recordIntents(PgConnection &conn, const QList<const Action *> &actions, const Actor &actor);

// One transaction: the fence taken once; each row written only where its id, status and
// updatedAt still equal what was read (0 rows: Stale; another generation: Fenced); the parent
// cleanup only for rows that changed; every audit row completed. All of it or, on error,
// nothing. The actions (one domain, each with its audit id, distinct rows) keep their order.
Expected<QList<WriteOutcome>, StoreError> writeActions(PgConnection &conn,
                                                       const DomainConfig &domain,
                                                       const RowKeyTypes &types,
                                                       const QList<const Action *> &actions);

// What a batch's transaction did, read again on a fresh connection after the old one was lost
// in the middle of it (#31: a cut COMMIT). Its audit rows are completed inside the transaction,
// so they tell: still "started" — it did not commit (nullopt); completed — it committed, with
// each action's outcome. Reading them FOR SHARE waits (at most the session's lock_timeout,
// run.postgresTimeoutMs) for a transaction the server is still finishing, so "not yet
// committed" is never read as "not".
Expected<std::optional<QList<WriteOutcome>>, StoreError>
readCommittedOutcomes(PgConnection &conn, const QList<const Action *> &actions);

// One statement: the audit rows of actions whose row was not written completed with their
// result and detail; a result that left nothing runnable gives the budget use back. False when
// the statement failed.
bool finishAuditSet(QSqlQuery &query, const QList<const Action *> &actions);

} // namespace reclaim
