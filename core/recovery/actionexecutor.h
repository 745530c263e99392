// Stage 6: run planned actions — enqueue (requeues), then the fenced conditional writes — in
// batches of one domain (#30), each action keeping its own result.
#pragma once

#include "config/domainconfig.h"
#include "domain/action.h"
#include "fencing/locklease.h"
#include "ports/jobstore.h"
#include "ports/queuewriter.h"

#include <QList>
#include <functional>

namespace reclaim {

// How many actions one batch takes: a few round trips to each server per batch (six PostgreSQL
// statements and about four Redis round trips, so three and two per 1,000 actions, which leaves
// room under ten per 1,000 for the run's reads and an approval's claims), and a transaction
// short enough (tens of milliseconds here) that a worker's update waits on it only briefly.
inline constexpr qsizetype kExecuteBatch = 2000;

// Fills in each action's result. Per batch: the lease confirmed; every attempt recorded (its
// audit row, and a requeue's use of the retry budget) before anything is tried; the requeues
// enqueued together; the lease confirmed again; then the rows of what was enqueued (and every
// FAIL) written in one transaction, each on its own condition, and what was not written
// audited with why. Never writes a row whose enqueue failed or went unanswered, never writes
// once the lease is lost, and reports 0 rows as Stale without touching the parent. `batch`:
// actions of `domain`, on distinct rows.
void executeBatch(const DomainConfig &domain, const QList<Action *> &batch, JobStore &store,
                  QueueWriter &writer, LockLease &lease, const Actor &actor);

// Actions of one domain, on distinct rows, to run as one batch.
struct ExecuteBatch
{
    const DomainConfig *domain = nullptr;
    QList<Action *> actions;
};

// Runs each batch as executeBatch() does, in order, with one overlap: a batch's enqueues run
// in Redis while the previous batch's rows are written to PostgreSQL (its enqueues answered
// and the lease confirmed before; a lease lost since then writes nothing). `before(i)`, when
// given, is asked before batch i starts; false stops there, and the batch already enqueued is
// still written.
void executeBatches(const QList<ExecuteBatch> &batches, JobStore &store, QueueWriter &writer,
                    LockLease &lease, const Actor &actor,
                    const std::function<bool(qsizetype)> &before = {});

// One action: a batch of one.
void executeAction(const DomainConfig &domain, Action &action, JobStore &store, QueueWriter &writer,
                   LockLease &lease, const Actor &actor);

} // namespace reclaim
