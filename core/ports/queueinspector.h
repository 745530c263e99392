// The queue inspector port: how the recovery core looks at BullMQ jobs, in batches, and learns
// either where each one is or that it could not look.
#pragma once

#include "domain/rowidset.h"
#include "domain/verdict.h"
#include "ports/rediserror.h"
#include "util/expected.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>

namespace reclaim {

struct JobRef
{
    QString keyPrefix; // "bull"
    QString queue;
    QString jobId;
};

// Where the next page of a state starts: next to the ids the last page read furthest (the
// anchors), wherever they have moved since, never at an offset that shifts when the state moves.
// The stages pass back what the last page returned; a default cursor is the start.
struct ScanCursor
{
    QStringList anchors; // furthest read first; empty: the start of the state
    qint64 position = 0; // where anchors.first() was (the adapter's own coordinate)
    // In a sorted set, the score each anchor was read with: an anchor whose score changed has
    // moved, and proves nothing about where the reader was. Empty for a list.
    QStringList scores;
};

struct ScanPage
{
    qint64 stateSize = 0;     // length of the list / cardinality of the set when the page was read
    bool queuePaused = false; // the queue's meta says paused: its waiting jobs are "paused"
    // Pausing or resuming this queue moves its waiting jobs between the `wait` and `paused`
    // lists (bullmq before 6, or a queue no Queue has stamped: assume it does). In 6.x a pause
    // is a flag, and a resume moves only what an older release left in `paused`.
    bool pauseMovesJobs = true;
    bool done = false;      // the state was read to its end
    bool restarted = false; // every anchor had left the state: this page is from its start again
    // The anchor this page continued from (empty: from the start). A job that moved after it
    // was read and came back (a retry) is no proof: the caller, following the event log, reads
    // the state again from its start when this one moved.
    QString continuedFrom;
    ScanCursor next; // where the page after this one starts
    struct Job
    {
        QString id;
        std::optional<QByteArray> data; // nullopt: the id had no job hash
    };
    QList<Job> jobs;
};

// The jobs of a queue that changed state after a mark, as the queue's own event log names them.
struct QueueMoves
{
    QString mark;         // where the log is now (opaque): pass it back to ask what moved since
    bool complete = true; // false: entries after the mark may be gone (trimmed), names missing
    QStringList jobIds;   // each job with an event after the mark, once
    // The queue was paused or resumed after the mark (the event names no job): BullMQ before 6
    // renames `wait` to `paused` and back, under a reader's feet.
    bool pausedOrResumed = false;
};

// The jobs that entered a queue's `prioritized` set after a mark of its priority counter (a
// changePriority writes no event, and can move a job behind a reader paging through the set).
struct PrioritizedSince
{
    QString mark;              // the counter now: pass it back to ask what entered since
    QList<ScanPage::Job> jobs; // each with its payload
};

// How many pages a reader may take over a state whose first page saw `size` jobs: enough to
// read it three times over (a fast queue that takes every anchor starts the reader again), and
// never unbounded — past it the state is "could not look", not "read".
inline qint64 scanPageBudget(qint64 size, int pageSize)
{
    const qint64 pages = (qMax<qint64>(0, size) + qMax(1, pageSize) - 1) / qMax(1, pageSize);
    return 3 * pages + 4;
}

// How much of each job's payload a direct lookup returns: an excerpt (the first 16 KiB, what an
// operator reads as evidence) or the whole of it (the scan matches data.jobId in it, and a payload
// cut short cannot be read).
enum class PayloadSize
{
    Excerpt,
    Whole
};

class QueueInspector
{
public:
    virtual ~QueueInspector() = default;

    // Direct lookups, batched into as few round trips as possible. One result per request, in
    // order; a failed lookup is an error, never a "missing" sighting. A sighting whose state is
    // "list-unresolved" needs listMembers() to decide.
    virtual QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                        PayloadSize payload) = 0;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs)
    {
        return probe(jobs, PayloadSize::Excerpt);
    }

    // Every id in one of the queue's lists ("wait", "paused", "active"), read in anchored pages
    // (see ScanCursor); a list that moves faster than it can be read is an error, never a
    // partial set. Held compactly (about 20 bytes an id): after a lost Redis a wait list can
    // hold a million jobs, which as a QSet<QString> was the run's peak (~130 MB).
    virtual Expected<RowIdSet, RedisError>
    listMembers(const QString &keyPrefix, const QString &queue, const QString &list) = 0;

    // The page of a state ("wait", "paused", "prioritized", "delayed", "waiting-children",
    // "active") that starts at `from`, with each job's payload.
    virtual Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                                    const QString &state, const ScanCursor &from,
                                                    int count) = 0;

    // What moved in `queue` since `since` (a mark from an earlier call; empty: take a mark only).
    virtual Expected<QueueMoves, RedisError>
    movesSince(const QString &keyPrefix, const QString &queue, const QString &since) = 0;

    // A scan's step: scanPage(), then movesSince(`since`) read right after it, as the two calls
    // give them. The default makes the two calls; the BullMQ reader sends both in one round trip
    // (the event log is read after the page either way). `moves` is meaningless when `page`
    // failed.
    struct PageThenMoves
    {
        Expected<ScanPage, RedisError> page;
        Expected<QueueMoves, RedisError> moves;
    };
    virtual PageThenMoves scanPageThenMoves(const QString &keyPrefix, const QString &queue,
                                            const QString &state, const ScanCursor &from, int count,
                                            const QString &since)
    {
        auto page = scanPage(keyPrefix, queue, state, from, count);
        if (!page) {
            RedisError error = page.error();
            return {std::move(page), unexpected(std::move(error))};
        }
        return {std::move(page), movesSince(keyPrefix, queue, since)};
    }

    // Whether the queue has any trace in Redis: its meta hash, its id counter, its event log, or
    // a job in any state structure. None is what a misspelt queue name, a wrong prefix or
    // database, the wrong Redis, or a Redis that lost its data all look like.
    virtual Expected<bool, RedisError> hasTrace(const QString &keyPrefix, const QString &queue) = 0;

    // The jobs in `prioritized` now that entered it after `mark` (a mark from an earlier call;
    // empty: take a mark only), in one atomic read.
    virtual Expected<PrioritizedSince, RedisError>
    prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark) = 0;

    virtual qint64 roundTrips() const = 0;
};

} // namespace reclaim
