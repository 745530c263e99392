// Held actions in reclaim.held_action, and every transition of each in reclaim.held_event
// (#29): what the run and the operators' approvals and rejections read and write, each change
// conditional on the state it leaves. One entry per row at most is open (held or approved): a
// partial unique index says so, so a runner racing another cannot hold a row twice.
#pragma once

#include "domain/heldaction.h"
#include "ports/heldactionstore.h"

#include <QStringList>

namespace reclaim {

class PgConnection;

// Idempotent statements for the held-action tables (part of Reclaim's schema, see reclaimschema).
QStringList heldActionSchemaStatements();

// The ids of the entries `filter` matches that are held now, oldest first: all an approval of a
// whole domain needs to start with, without reading 100,000 entries whole.
Expected<QList<qint64>, StoreError> readIdsHeldNow(PgConnection &conn, const HeldFilter &filter);

Expected<QList<HeldAction>, StoreError> readHeldActions(PgConnection &conn,
                                                        const HeldFilter &filter);
Expected<QList<HeldGroup>, StoreError> readHeldGroups(PgConnection &conn);
Expected<QHash<QString, qint64>, StoreError> writeHeldSync(PgConnection &conn,
                                                           const QString &domain,
                                                           const HeldSyncPlan &plan,
                                                           const Actor &run);

// Many entries out of state `from`, each to its own state with its own detail and event, each
// only if it is in `from` now (the conditional write two operators race on: of two, one moves
// it, the other moves nothing and reads who did) — one statement per slice of 5,000. The ids
// that moved.
Expected<QSet<qint64>, StoreError> writeHeldMoves(PgConnection &conn, HeldState from,
                                                  const QList<HeldSettle> &moves, const Actor &by);

// writeHeldMoves() of `ids` out of `held`, all to `to` with `detail`, answering each entry moved
// as it now is (the move's own RETURNING: no read before it). An id not answered was not held
// (taken by someone else, or unknown); nothing at all where Reclaim's schema does not exist.
Expected<QList<HeldAction>, StoreError> takeHeld(PgConnection &conn, const QList<qint64> &ids,
                                                 HeldState to, const QString &detail,
                                                 const Actor &by);

} // namespace reclaim
