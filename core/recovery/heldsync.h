// Stage 6b (#29): what a run changes in the held actions Reclaim keeps, for one domain it read.
// Pure: the run's verdicts and actions against the entries still held, so every rule is tested
// without a database (tests/core/test_heldsync.cpp). The rules:
//   - planned and held again exactly as before (kind, status, updatedAt): kept, held once;
//   - executed by this run on its own (nothing holds it any more): executed;
//   - the row is no longer a candidate, or it is with another status or updatedAt, or this run
//     found its job runnable, or its write came back stale, or its kind now only observes:
//     superseded, with why;
//   - an operator's rejection covers it: rejected;
//   - could not tell (its candidate is UNKNOWN, or its action was not attempted or failed
//     without deciding anything): left as it is. "Could not look" never settles a held action.
// Whatever this run holds that is not kept is new.
#pragma once

#include "domain/heldaction.h"
#include "domain/runreport.h"
#include "ports/heldactionstore.h"

namespace reclaim {

// `open` are the domain's entries in state held. `actions` may hold other domains' actions.
HeldSyncPlan planHeldSync(const DomainReport &domain, const QList<Action> &actions,
                          const QList<HeldAction> &open, const QString &runId);

// Stage 6b: for every domain whose candidates were read, plans and applies the sync, and sets
// each held action's heldId; then reads every held action's group into report.heldOpen. A store
// error is told in report.heldStoreErrors, never fatal: the actions stay held in the report and the
// next run holds them again.
void keepHeldActions(HeldActionStore &store, RunReport &report, const Actor &run);

} // namespace reclaim
