// The queue writer port: how a requeue puts a rebuilt job back on its BullMQ queue.
#pragma once

#include "ports/queueinspector.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <memory>

namespace reclaim {

struct EnqueueOutcome
{
    bool enqueued = false;
    QString replacedState; // a retained "completed"/"failed" job (or "stray" hash) removed first
    QString runnableState; // when not enqueued: the job was already runnable in this state
    // When enqueued: the job options written (JSON): the release's defaults for an add, with
    // the retained job's attempts, backoff, priority and removeOnComplete/Fail carried over.
    QByteArray options;
    // When not enqueued: the run's fencing generation is no longer the current one (a newer run
    // took the lock, or the counter was reset); `currentGeneration` is what the queue holds.
    bool fenced = false;
    qint64 currentGeneration = 0;
    // When enqueued into a queue with no version stamp: the layout written, as assumed from the
    // domain's configuration ("bullmq 5.x (no stamp ...)"); empty when the stamp said it.
    QString assumedLayout;
};

// One job to put back: where, under which id and name, with which data, as which run.
struct EnqueueRequest
{
    JobRef job;
    QString name;
    QByteArray data;
    qint64 timestampMs = 0;
    // The run's fencing generation: the write happens only while it is still the current one.
    qint64 generation = 0;
    // "4", "5", "6" or empty: the BullMQ major whose add is written into a queue whose meta
    // hash has no version (domains[].bullmqIfUnstamped); empty: such a queue is refused.
    QString familyIfUnstamped;
    // A JSON object of job options (domains[].jobOptions: attempts, backoff, priority,
    // removeOnComplete, removeOnFail) written as the library's add writes them, where no
    // retained job under the id carries its own; empty: the library's defaults.
    QByteArray options;
};

// An enqueue sent whose answers are not read yet (QueueWriter::startEnqueue).
class PendingEnqueue
{
public:
    virtual ~PendingEnqueue() = default;
    // One answer per request, in order, exactly as enqueueMany() gives them. Called once.
    virtual QList<Expected<EnqueueOutcome, RedisError>> finish() = 0;

protected:
    PendingEnqueue() = default;
    Q_DISABLE_COPY_MOVE(PendingEnqueue)
};

class QueueWriter
{
public:
    virtual ~QueueWriter() = default;
    // Enqueues only while `generation` is still the current fencing generation, checked in the
    // same atomic step as the write: a stale run that resumes after a newer one started writes
    // nothing to the queue.
    virtual Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) = 0;

    // Many jobs at once (#30: a batch of a mass recovery), each with its own answer, in order,
    // each fenced on its own. An error of kind Unanswered means the job may have been enqueued
    // (the request was sent, its reply never came); any other error, that it was not. The
    // default asks one at a time; the BullMQ writer pipelines the whole batch.
    virtual QList<Expected<EnqueueOutcome, RedisError>>
    enqueueMany(const QList<EnqueueRequest> &requests)
    {
        QList<Expected<EnqueueOutcome, RedisError>> out;
        out.reserve(requests.size());
        for (const EnqueueRequest &r : requests)
            out << enqueue(r);
        return out;
    }
    // enqueueMany() in two halves, so that Redis runs a batch's enqueues while the caller
    // writes the previous batch's rows to PostgreSQL (#30). Until finish(), the caller makes
    // no other call on this writer or on anything sharing its connection (the recovery lock).
    // The default sends nothing ahead: finish() runs enqueueMany().
    virtual std::unique_ptr<PendingEnqueue> startEnqueue(const QList<EnqueueRequest> &requests);
};

// The default of QueueWriter::startEnqueue: the whole enqueue happens in finish().
class DeferredEnqueue final : public PendingEnqueue
{
public:
    DeferredEnqueue(QueueWriter &writer, QList<EnqueueRequest> requests)
        : m_writer(writer), m_requests(std::move(requests))
    {}
    QList<Expected<EnqueueOutcome, RedisError>> finish() override
    {
        return m_writer.enqueueMany(m_requests);
    }

private:
    QueueWriter &m_writer;
    QList<EnqueueRequest> m_requests;
};

inline std::unique_ptr<PendingEnqueue>
QueueWriter::startEnqueue(const QList<EnqueueRequest> &requests)
{
    return std::make_unique<DeferredEnqueue>(*this, requests);
}

} // namespace reclaim
