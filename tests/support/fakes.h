// In-memory stand-ins for the job store and the queue, for fast unit tests of the core's logic.
// They record every call, so tests can assert order ("candidates before the queue") and
// absence of writes.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/jobstore.h"
#include "ports/queueinspector.h"
#include "ports/queuewriter.h"
#include "ports/recoverylock.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>
#include <functional>

namespace reclaim::test {

// The shared call log: "store:readCandidates:<domain>", "queue:probe:<n>",
// "queue:scan:<queue>:<state>:<offset>", "queue:enqueue:<jobId>", "store:apply:<rowId>",
// "lock:acquire", "lock:release" ...
using CallLog = QStringList;

class FakeQueue final : public QueueInspector, public QueueWriter, public RecoveryLock
{
public:
    explicit FakeQueue(CallLog *log) : m_log(log) {}

    // A job present in `queue` under `jobId` in `state` ("waiting", "active", "completed", ...,
    // or a scan-only legacy job). `data` is its payload.
    void put(const QString &queue, const QString &jobId, const QString &state,
             const QByteArray &data = {}, qint64 lockTtlMs = -2);
    // An id in a state structure with no job hash (BullMQ removed the hash but not the id).
    void putHashless(const QString &queue, const QString &jobId, const QString &state);
    void remove(const QString &queue, const QString &jobId);
    QString stateOf(const QString &queue, const QString &jobId) const;

    // Failure injection: every probe / scan page / enqueue / lock call fails while set.
    std::optional<RedisError> probeError;
    std::optional<RedisError> scanError;
    std::optional<RedisError> enqueueError;
    std::optional<RedisError> lockError;
    std::optional<RedisError> listError; // every listMembers() call fails while set
    // Fails only probes of this job id.
    QString failProbeOfJobId;
    // Fails only this scan page, named "<queue>:<state>:<offset>".
    QString failScanPage;
    // While set, a probe of a job held in a list (or of a stray hash) answers "list-unresolved",
    // as the real probe does when a list is longer than its walk limit.
    bool listsTooLong = false;
    // Called after every probe batch (tests use it to change the world mid-run).
    std::function<void()> afterProbe;
    // Called after every enqueue that went through (a fast worker finishing the job).
    std::function<void()> afterEnqueue;
    // Called after every scan page that was read.
    std::function<void(const QString &queue, const QString &state, qint64 offset)> afterScanPage;

    QString lockHolder;
    qint64 lockTtlMs = -2;
    qint64 generation = 0;

    using QueueInspector::probe;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                PayloadSize payload) override;
    Expected<RowIdSet, RedisError> listMembers(const QString &keyPrefix, const QString &queue,
                                               const QString &list) override;
    Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                            const QString &state, const ScanCursor &from,
                                            int count) override;
    Expected<QueueMoves, RedisError> movesSince(const QString &keyPrefix, const QString &queue,
                                                const QString &since) override;
    // The jobs listed in `newlyPrioritized` when asked after a mark (the fake's counter is 1).
    Expected<PrioritizedSince, RedisError>
    prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark) override;
    QStringList newlyPrioritized;
    // Queues with no trace in Redis (no meta, no job anywhere); every other queue has one.
    QStringList untracedQueues;
    std::optional<RedisError> traceError; // hasTrace() fails while set
    Expected<bool, RedisError> hasTrace(const QString &keyPrefix, const QString &queue) override;
    qint64 roundTrips() const override { return m_roundTrips; }
    // What movesSince() reports after a mark: the jobs that moved, whether the log is complete.
    QStringList movedJobs;
    bool movesComplete = true;
    bool pausedOrResumed = false; // what movesSince() says of a pause or resume after a mark

    Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) override;

    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs,
                                              qint64 floor) override;
    Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) override;
    Expected<bool, RedisError> release(const QString &token) override;
    Expected<LockAttempt, RedisError> peek() override;

private:
    struct Job
    {
        QString state;
        QByteArray data;
        qint64 lockTtlMs = -2;
        bool hasHash = true;
    };
    CallLog *m_log;
    QMap<QString, QMap<QString, Job>> m_jobs; // queue → id → job
    qint64 m_roundTrips = 0;
};

class FakeJobStore final : public JobStore
{
public:
    explicit FakeJobStore(CallLog *log) : m_log(log) {}

    struct Row
    {
        QString domain;
        QString id;
        QString type;
        QString status;
        QString updatedAt;
        QString parentStatus; // the parent's status column this job drives ("" = no parent)
        QString error;
    };
    QMap<QString, Row> rows;               // by row id
    QHash<QString, QByteArray> restorable; // row id → payload the restore query would return
    QHash<QString, int> requeues;
    qint64 fence = 0;
    // While >= 0, fenceGeneration() answers this instead: a newer run started after it was read.
    qint64 staleFenceRead = -1;
    std::optional<StoreError> readError;
    std::optional<StoreError> writeError;
    std::optional<StoreError> restoreError; // restorePayload() fails while set
    std::optional<StoreError> budgetError;  // recentRequeues() fails while set
    // restorePayloadsOf(): these rows' restores fail, the others' do not (one statement each
    // way: what the real store gives after a set statement fails and it asks row by row).
    QSet<QString> restoreFailsFor;
    int budgetStatements = 0;  // recentRequeuesOf() calls: one statement each in the real store
    int restoreStatements = 0; // restorePayloadsOf() calls
    int rowByRowReads = 0;     // restorePayload() and recentRequeues() calls
    std::optional<StoreError> intentError; // recordIntent() fails while set
    QList<Action> audit;
    QList<Action> intents;       // recorded before each attempt, as the real store's "started" rows
    QList<Rejection> rejections; // active ones
    std::optional<StoreError> rejectionsError; // activeRejections() fails while set

    Expected<QList<Candidate>, StoreError> readCandidates(const DomainConfig &domain,
                                                          RowJson rowJson) override;
    Expected<std::optional<QByteArray>, StoreError> restorePayload(const DomainConfig &domain,
                                                                   const RestoreRule &rule,
                                                                   const QString &rowId) override;
    Expected<int, StoreError> recentRequeues(const DomainConfig &domain,
                                             const QString &rowId) override;
    Expected<QHash<QString, int>, StoreError> recentRequeuesOf(const DomainConfig &domain,
                                                               const QStringList &rowIds) override;
    QHash<QString, RestoredInput> restorePayloadsOf(const DomainConfig &domain,
                                                    const RestoreRule &rule,
                                                    const QStringList &rowIds) override;
    Expected<qint64, StoreError> fenceGeneration() override
    {
        return staleFenceRead >= 0 ? staleFenceRead : fence;
    }
    Expected<bool, StoreError> startGeneration(qint64 generation) override;
    Expected<qint64, StoreError> recordIntent(const Action &action, const Actor &actor) override;
    Expected<WriteOutcome, StoreError> applyAction(const DomainConfig &domain, const Action &action,
                                                   const Actor &actor) override;
    void auditOnly(const Action &action, const Actor &actor) override;
    Expected<std::optional<Candidate>, StoreError> readRow(const DomainConfig &domain,
                                                           const QString &rowId) override;
    Expected<QList<Rejection>, StoreError> activeRejections(const DomainConfig &domain) override;
    Expected<Rejection, StoreError> recordRejection(const Action &action,
                                                    const Actor &actor) override;
    Expected<int, StoreError> undoRejection(const Action &action, const Actor &actor) override;

private:
    CallLog *m_log;
};

// A small two-queue domain ("video": video-generation + video-export, COMPOSE restorable) and a
// one-queue domain ("image"), for unit tests.
ReclaimConfig fakeConfig();

} // namespace reclaim::test
