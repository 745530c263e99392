// One whole recovery run over fakes: the order of the stages (lock, candidates before the queue,
// lookup, scan only when needed, plan, execute, release) and every rule about when nothing may
// be written.
#include "recovery/recoveryrun.h"
#include "support/callbackprogress.h"
#include "support/fakes.h"
#include "support/fakeworld.h"
#include "testprint.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QTest>
#include <functional>

using namespace reclaim;
using namespace reclaim::test;

class TestRecoveryRun : public QObject
{
    Q_OBJECT
private slots:
    void candidatesAreReadBeforeTheQueue()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("QUEUED"));
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::Completed);
        QCOMPARE(w.log.first(), QStringLiteral("lock:acquire"));
        const qsizetype lastRead = w.lastIndex(QStringLiteral("store:readCandidates"));
        const qsizetype firstQueue = w.firstIndex(QStringLiteral("queue:"));
        QVERIFY(w.logged(QStringLiteral("store:readCandidates:video")));
        QVERIFY(w.logged(QStringLiteral("store:readCandidates:image")));
        QVERIFY(firstQueue > 0);
        QVERIFY2(lastRead < firstQueue, qPrintable(w.log.join(QLatin1Char('\n'))));
        QCOMPARE(w.log.last(), QStringLiteral("lock:release"));
    }

    // A row created while the queue is being read must not be judged in this run.
    void rowAppearingDuringTheLookupIsNotACandidate()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("QUEUED"));
        w.queue.afterProbe = [&] {
            w.row(QStringLiteral("image"), QStringLiteral("ij_new"), {}, QStringLiteral("QUEUED"));
        };
        const RunReport r = w.run();
        QVERIFY(r.find(QStringLiteral("image"), QStringLiteral("ij_1")));
        QVERIFY(!r.find(QStringLiteral("image"), QStringLiteral("ij_new")));
        QVERIFY(!findAction(r, QStringLiteral("image/ij_new")));
        QCOMPARE(w.store.rows.value(QStringLiteral("ij_new")).status, QStringLiteral("QUEUED"));
    }

    void successfulDirectLookupSkipsTheScan()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("QUEUED"));
        w.queue.put(QStringLiteral("video-generation"), QStringLiteral("video-generate-vj_1"),
                    QStringLiteral("active"));
        w.queue.put(QStringLiteral("image-render"), QStringLiteral("image-ij_1"),
                    QStringLiteral("waiting"));
        const RunReport r = w.run();
        QCOMPARE(r.count(Verdict::Scheduled), 2);
        QVERIFY(!w.logged(QStringLiteral("queue:scan")));
        QVERIFY(!r.domains.at(0).scan.ran);
        QVERIFY(!r.domains.at(1).scan.ran);
        QVERIFY(r.actions.isEmpty());
    }

    void onlyUnresolvedDomainsAreScanned()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("QUEUED"));
        w.queue.put(QStringLiteral("image-render"), QStringLiteral("image-ij_1"),
                    QStringLiteral("waiting"));
        const RunReport r = w.run();
        QVERIFY(r.domains.at(0).scan.ran);
        QVERIFY(!r.domains.at(1).scan.ran);
        QVERIFY(w.logged(QStringLiteral("queue:scan:video-generation:")));
        QVERIFY(w.logged(QStringLiteral("queue:scan:video-export:")));
        QVERIFY(!w.logged(QStringLiteral("queue:scan:image-render:")));
    }

    void twoQueuesAreReconciled()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.queue.put(QStringLiteral("video-export"), QStringLiteral("video-generate-vj_1"),
                    QStringLiteral("waiting"));
        const RunReport r = w.run();
        const CandidateVerdict *v = r.find(QStringLiteral("video"), QStringLiteral("vj_1"));
        QVERIFY(v);
        QCOMPARE(v->verdict, Verdict::Scheduled);
        QCOMPARE(v->evidence.last().queue, QStringLiteral("video-export"));
        QVERIFY(r.actions.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("queue:scan")));
    }

    void legacyIdFoundByTheScanIsLeftAlone()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("EXPORT"),
              QStringLiteral("QUEUED"));
        w.queue.put(QStringLiteral("video-export"), QStringLiteral("31"), QStringLiteral("delayed"),
                    QByteArray(R"({"jobId":"vj_1"})"));
        const RunReport r = w.run();
        const CandidateVerdict *v = r.find(QStringLiteral("video"), QStringLiteral("vj_1"));
        QCOMPARE(v->verdict, Verdict::Scheduled);
        QCOMPARE(v->evidence.last().how, FoundBy::Scan);
        QCOMPARE(v->evidence.last().jobId, QStringLiteral("31"));
        QVERIFY(r.actions.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
    }

    void lookupErrorIsUnknownAndWritesNothing()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("QUEUED"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray("{}"));
        w.queue.probeError =
            RedisError{RedisError::Kind::Server, QStringLiteral("ERR Error running script")};
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::Completed);
        QCOMPARE(r.count(Verdict::Unknown), 2);
        QCOMPARE(r.count(Verdict::Absent), 0);
        QVERIFY(r.actions.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("queue:enqueue")));
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("PROCESSING"));
        QCOMPARE(w.store.rows.value(QStringLiteral("ij_1")).status, QStringLiteral("QUEUED"));
    }

    void scanFailureIsUnknownAndWritesNothing()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.queue.scanError = RedisError{RedisError::Kind::Timeout, QStringLiteral("slow")};
        const RunReport r = w.run();
        QCOMPARE(r.find(QStringLiteral("image"), QStringLiteral("ij_1"))->verdict,
                 Verdict::Unknown);
        QVERIFY(r.domains.at(1).scan.error);
        QVERIFY(r.actions.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
    }

    void orphansAreRecovered()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_c"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_e"), QStringLiteral("EXPORT"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_c"), QByteArray(R"({"jobId":"vj_c"})"));
        const RunReport r = w.run();
        QCOMPARE(r.count(Verdict::Absent), 2);
        const Action *requeue = findAction(r, QStringLiteral("video/vj_c"));
        const Action *fail = findAction(r, QStringLiteral("video/vj_e"));
        QVERIFY(requeue && fail);
        QCOMPARE(requeue->kind, ActionKind::Requeue);
        QCOMPARE(requeue->result, ActionResult::Applied);
        QCOMPARE(requeue->precondition.generation, r.lock.generation);
        QCOMPARE(w.queue.stateOf(QStringLiteral("video-generation"),
                                 QStringLiteral("video-compose-vj_c")),
                 QStringLiteral("waiting"));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_c")).status, QStringLiteral("QUEUED"));
        // A requeue is not a failure: the parent keeps waiting for the job.
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_c")).parentStatus,
                 QStringLiteral("PROCESSING"));
        QCOMPARE(fail->kind, ActionKind::Fail);
        QCOMPARE(fail->result, ActionResult::Applied);
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_e")).status, QStringLiteral("FAILED"));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_e")).parentStatus, QStringLiteral("FAILED"));
        QVERIFY(fail->parent.attempted);
        QCOMPARE(fail->parent.column, QStringLiteral("exportStatus"));
        // The enqueue comes before the row write, never after.
        QVERIFY(w.firstIndex(QStringLiteral("queue:enqueue:video-compose-vj_c")) <
                w.firstIndex(QStringLiteral("store:apply:vj_c")));
    }

    // #29, the first part of the guard: a domain with a queue that has no trace in Redis (a
    // misspelt queue name, a wrong prefix or database, a Redis that lost its data) executes
    // nothing; every action is held with the reason, and other domains go on. A trace that
    // could not be checked holds the domain too.
    void aDomainWithAQueueWithoutATraceExecutesNothing_data()
    {
        QTest::addColumn<bool>("checkFails");
        QTest::newRow("no trace") << false;
        QTest::newRow("trace could not be checked") << true;
    }
    void aDomainWithAQueueWithoutATraceExecutesNothing()
    {
        QFETCH(bool, checkFails);
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_c"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_e"), QStringLiteral("EXPORT"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), QStringLiteral("RENDER"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_c"), QByteArray(R"({"jobId":"vj_c"})"));
        if (checkFails)
            w.queue.traceError = RedisError{RedisError::Kind::Timeout, QStringLiteral("slow")};
        else
            w.queue.untracedQueues = {QStringLiteral("video-export")};
        const RunReport r = w.run();
        QCOMPARE(r.count(Verdict::Absent), 3);
        for (const char *id : {"video/vj_c", "video/vj_e"}) {
            const Action *a = findAction(r, QLatin1String(id));
            QVERIFY(a);
            QCOMPARE(a->result, ActionResult::Pending);
            QVERIFY2(a->heldReason.contains(checkFails ? QStringLiteral("could not check")
                                                       : QStringLiteral("no trace in Redis")),
                     qPrintable(a->heldReason));
            QVERIFY2(a->heldReason.contains(QStringLiteral("2 actions held")),
                     qPrintable(a->heldReason));
        }
        QVERIFY(!w.logged(QStringLiteral("queue:enqueue:video")));
        QVERIFY(!w.logged(QStringLiteral("store:apply:vj_")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_e")).status, QStringLiteral("PROCESSING"));
        const DomainReport *video = nullptr;
        for (const DomainReport &d : r.domains)
            if (d.name == QLatin1String("video"))
                video = &d;
        QVERIFY(video && !video->heldReason.isEmpty());
        QVERIFY(r.toJson()
                    .value(QStringLiteral("domains"))
                    .toArray()
                    .at(0)
                    .toObject()
                    .contains(QStringLiteral("held")));
        // The other domain: held too when the check itself fails (it cannot look either),
        // executed when its queue has a trace.
        const Action *image = findAction(r, QStringLiteral("image/ij_1"));
        QVERIFY(image);
        QCOMPARE(image->result, checkFails ? ActionResult::Pending : ActionResult::Applied);
    }

    void retainedFinishedJobUnderTheCurrentIdIsRecovered()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.queue.put(QStringLiteral("video-generation"), QStringLiteral("video-generate-vj_1"),
                    QStringLiteral("completed"), QByteArray(R"({"jobId":"vj_1"})"));
        const RunReport r = w.run();
        const CandidateVerdict *v = r.find(QStringLiteral("video"), QStringLiteral("vj_1"));
        QCOMPARE(v->verdict, Verdict::Absent);
        QVERIFY(v->scanned);
        QVERIFY(r.domains.at(0).scan.ran);
        QCOMPARE(findAction(r, QStringLiteral("video/vj_1"))->result, ActionResult::Applied);
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("FAILED"));
    }

    void requeueReplacesARetainedJobUnderTheSameId()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_1"),
                    QStringLiteral("failed"));
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QCOMPARE(a->result, ActionResult::Applied);
        QCOMPARE(a->resultDetail,
                 QStringLiteral("replaced a retained failed job under video-compose-vj_1"));
        QCOMPARE(w.queue.stateOf(QStringLiteral("video-generation"),
                                 QStringLiteral("video-compose-vj_1")),
                 QStringLiteral("waiting"));
    }

    void retryBudgetExhaustedFailsInsteadOfRequeueing()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.store.requeues.insert(QStringLiteral("vj_1"), w.config.domains.at(0).maxRequeues);
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QCOMPARE(a->kind, ActionKind::Fail);
        QCOMPARE(a->result, ActionResult::Applied);
        QVERIFY(!w.logged(QStringLiteral("queue:enqueue")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("FAILED"));
    }

    void enqueueErrorLeavesTheRowUntouched()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.queue.enqueueError =
            RedisError{RedisError::Kind::Io, QStringLiteral("connection reset by peer")};
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QCOMPARE(a->result, ActionResult::EnqueueFailed);
        QVERIFY(a->resultDetail.contains(QStringLiteral("connection reset")));
        QVERIFY(w.logged(QStringLiteral("queue:enqueue:video-compose-vj_1")));
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        const FakeJobStore::Row row = w.store.rows.value(QStringLiteral("vj_1"));
        QCOMPARE(row.status, QStringLiteral("PROCESSING"));
        QCOMPARE(row.updatedAt, QStringLiteral("2026-01-01 10:00:00.123"));
        QCOMPARE(row.parentStatus, QStringLiteral("PROCESSING"));
        QCOMPARE(w.store.requeues.value(QStringLiteral("vj_1")), 0);
        QCOMPARE(w.store.audit.size(), 1); // the attempt is audited, nothing else
    }

    void alreadyRunnableAtEnqueueIsDropped()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        // The app enqueued it itself between our last lookup (the re-check of what still looked
        // absent after the scan: the fourth probe, one per queue each time) and our enqueue.
        int probes = 0;
        w.queue.afterProbe = [&] {
            if (++probes == 4)
                w.queue.put(QStringLiteral("video-generation"),
                            QStringLiteral("video-compose-vj_1"), QStringLiteral("waiting"));
        };
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Dropped);
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("PROCESSING"));
    }

    // PostgreSQL fails after the enqueue went through: the attempt, recorded before the enqueue,
    // is completed as "enqueued, row write failed: <reason>" and keeps its retry-budget use.
    void anEnqueueWhoseRowWriteFailsIsAuditedAndCounted()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.store.writeError = StoreError{QStringLiteral("server closed the connection")};
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Error);
        QCOMPARE(a->resultDetail,
                 QStringLiteral("enqueued, row write failed: server closed the connection"));
        QVERIFY(w.firstIndex(QStringLiteral("store:intent:vj_1")) >= 0);
        QVERIFY(w.firstIndex(QStringLiteral("store:intent:vj_1")) <
                w.firstIndex(QStringLiteral("queue:enqueue:video-compose-vj_1")));
        QCOMPARE(w.store.intents.size(), 1);
        QCOMPARE(w.store.audit.size(), 1);
        QCOMPARE(w.store.audit.first().result, ActionResult::Error);
        QCOMPARE(w.store.audit.first().auditId, 1);
        QCOMPARE(w.store.requeues.value(QStringLiteral("vj_1")), 1);
    }

    // An attempt that cannot be put on record is not made: no enqueue, no write.
    void anAttemptThatCannotBeRecordedIsNotMade()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.store.intentError = StoreError{QStringLiteral("the database system is shutting down")};
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("video/vj_1"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Error);
        QVERIFY2(a->resultDetail.contains(QStringLiteral("not attempted")) &&
                     a->resultDetail.contains(QStringLiteral("shutting down")),
                 qPrintable(a->resultDetail));
        QVERIFY(!w.logged(QStringLiteral("queue:enqueue")));
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QCOMPARE(w.store.requeues.value(QStringLiteral("vj_1")), 0);
    }

    // A fast worker finished the requeued job before our write: 0 rows, but the enqueue ran, so
    // the budget counts it.
    void aStaleRequeueIsCountedByTheBudget()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"), QByteArray(R"({"jobId":"vj_1"})"));
        w.queue.afterEnqueue = [&] {
            w.store.rows[QStringLiteral("vj_1")].status = QStringLiteral("READY");
        };
        const RunReport r = w.run();
        QCOMPARE(findAction(r, QStringLiteral("video/vj_1"))->result, ActionResult::Stale);
        QCOMPARE(w.store.requeues.value(QStringLiteral("vj_1")), 1);
    }

    // A worker saved progress between our read and our write: 0 rows, and then nothing more —
    // in particular the parent is left as it is.
    void staleWriteSkipsTheParent()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_2"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        CallbackProgress progress([&](const QString &phase, int done, int) {
            if (phase == QLatin1String("execute") && done == 0)
                w.store.rows[QStringLiteral("vj_1")].updatedAt =
                    QStringLiteral("2026-01-01 10:07:00.000");
        });
        RunRequest request;
        request.progress = &progress;
        const RunReport r = w.run(request);
        const Action *stale = findAction(r, QStringLiteral("video/vj_1"));
        QCOMPARE(stale->result, ActionResult::Stale);
        QVERIFY(stale->resultDetail.contains(QStringLiteral("0 rows")));
        QVERIFY(!stale->parent.attempted);
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("PROCESSING"));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).parentStatus,
                 QStringLiteral("PROCESSING"));
        QCOMPARE(w.log.count(QStringLiteral("store:apply:vj_1")),
                 1); // no second write for the parent
        // The stale row does not stop the run: the next action still goes through.
        QCOMPARE(findAction(r, QStringLiteral("video/vj_2"))->result, ActionResult::Applied);
        QCOMPARE(r.count(ActionResult::Stale), 1);
    }

    void newerRunFencesOurWrites()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        CallbackProgress progress([&](const QString &phase, int, int) {
            if (phase == QLatin1String("execute"))
                w.store.fence = 1000; // a newer run recorded its start
        });
        RunRequest request;
        request.progress = &progress;
        const RunReport r = w.run(request);
        QCOMPARE(findAction(r, QStringLiteral("image/ij_1"))->result, ActionResult::Fenced);
        QCOMPARE(w.store.rows.value(QStringLiteral("ij_1")).status, QStringLiteral("PROCESSING"));
    }

    void lockHeldSkipsTheRun()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.queue.lockHolder = QStringLiteral("reclaim;host=other;pid=9;since=x;nonce=9");
        w.queue.lockTtlMs = 420000;
        w.queue.generation = 5;
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::SkippedLockHeld);
        QCOMPARE(r.lock.state, LockReport::State::Held);
        QCOMPARE(r.lock.token, w.queue.lockHolder);
        QCOMPARE(r.lock.ttlMs, 420000);
        QVERIFY(r.outcomeDetail.contains(QStringLiteral("host=other")));
        // Only the attempt: no candidate read, no queue read, no write, and no release.
        QCOMPARE(w.log, (CallLog{QStringLiteral("lock:acquire")}));
        QCOMPARE(w.store.rows.value(QStringLiteral("ij_1")).status, QStringLiteral("PROCESSING"));
        QVERIFY(w.store.audit.isEmpty());
        QCOMPARE(w.queue.lockHolder, QStringLiteral("reclaim;host=other;pid=9;since=x;nonce=9"));
    }

    void lockUnreachableSkipsTheRun()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.queue.lockError = RedisError{RedisError::Kind::Connect,
                                       QStringLiteral("cannot connect to 127.0.0.1:6379")};
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(r.lock.state, LockReport::State::Unreachable);
        QVERIFY(r.lock.error.contains(QStringLiteral("cannot connect")));
        QCOMPARE(w.log, (CallLog{QStringLiteral("lock:acquire")}));
        QVERIFY(r.domains.isEmpty());
        QVERIFY(r.actions.isEmpty());
    }

    void dryRunWithRedisUnreachableIsSkipped()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.queue.lockError =
            RedisError{RedisError::Kind::Timeout, QStringLiteral("127.0.0.1:6379 did not answer")};
        RunRequest request;
        request.dryRun = true;
        const RunReport r = w.run(request);
        QCOMPARE(r.outcome, RunReport::Outcome::SkippedUnreachable);
        QCOMPARE(r.lock.state, LockReport::State::Unreachable);
        QVERIFY(r.domains.isEmpty());
        QVERIFY(r.actions.isEmpty());
        QVERIFY(w.nothingWritten());
    }

    void dryRunWritesNothing()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_c"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_g"), QStringLiteral("GENERATE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_c"), QByteArray(R"({"jobId":"vj_c"})"));
        w.queue.lockHolder = QStringLiteral("reclaim;host=daemon;pid=3;since=x;nonce=3");
        const auto rowsBefore = w.store.rows;
        RunRequest request;
        request.dryRun = true;
        const RunReport r = w.run(request);
        QCOMPARE(r.outcome, RunReport::Outcome::Completed);
        QVERIFY(r.dryRun);
        QCOMPARE(r.count(Verdict::Absent), 2);
        QCOMPARE(r.actions.size(), 2);
        for (const Action &a : r.actions)
            QCOMPARE(a.result, ActionResult::Pending);
        QCOMPARE(findAction(r, QStringLiteral("video/vj_c"))->kind, ActionKind::Requeue);
        // It looked who holds the lock, but took nothing and wrote nothing.
        QCOMPARE(r.lock.state, LockReport::State::NotAttempted);
        QCOMPARE(r.lock.token, QStringLiteral("reclaim;host=daemon;pid=3;since=x;nonce=3"));
        QVERIFY2(w.nothingWritten(), qPrintable(w.log.join(QLatin1Char('\n'))));
        QVERIFY(!w.logged(QStringLiteral("lock:release")));
        QCOMPARE(w.store.fence, 0);
        QCOMPARE(w.queue.generation, 0);
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_c")).status,
                 rowsBefore.value(QStringLiteral("vj_c")).status);
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_g")).status,
                 rowsBefore.value(QStringLiteral("vj_g")).status);
        QCOMPARE(w.queue.stateOf(QStringLiteral("video-generation"),
                                 QStringLiteral("video-compose-vj_c")),
                 QString());
    }

    void observeModePlansButDoesNotExecute()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        RunRequest request;
        request.executeActions = false;
        const RunReport r = w.run(request);
        QCOMPARE(r.actions.size(), 1);
        QCOMPARE(r.actions.first().result, ActionResult::Pending);
        QCOMPARE(r.actions.first().precondition.generation,
                 r.lock.generation); // ready for approval
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QVERIFY(r.lock.released);
    }

    // --once --json streams the report (domain/runreportjson.cpp): every candidate and action
    // of every domain as the run has it, one per line, payloads as the JSON they hold; and an
    // empty report is a document too.
    void theStreamedReportSaysWhatTheRunHas()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_2"), {}, QStringLiteral("QUEUED"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_1"),
                                  QByteArray("{ \"jobId\": \"vj_1\",\n  \"frames\": [1, 2] }"));
        RunReport r = w.run();
        QVERIFY(r.actions.size() >= 2);
        r.outcomeDetail = QStringLiteral("a \"quoted\"\nline"); // escaped, read back as it is
        QBuffer out;
        QVERIFY(out.open(QIODevice::WriteOnly));
        r.writeJson(out);
        QVERIFY(out.data().endsWith("]}\n"));
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(out.data(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(doc.value(QStringLiteral("runId")).toString(), r.runId);
        QCOMPARE(doc.value(QStringLiteral("outcomeDetail")).toString(), r.outcomeDetail);
        QCOMPARE(doc.value(QStringLiteral("counts")).toObject().value(QStringLiteral("ABSENT")),
                 r.count(Verdict::Absent));
        const QJsonArray domains = doc.value(QStringLiteral("domains")).toArray();
        QCOMPARE(domains.size(), r.domains.size());
        int lines = 0;
        for (qsizetype i = 0; i < r.domains.size(); ++i) {
            const QJsonObject d = domains.at(i).toObject();
            QCOMPARE(d.value(QStringLiteral("name")).toString(), r.domains.at(i).name);
            const QJsonArray cands = d.value(QStringLiteral("candidates")).toArray();
            QCOMPARE(cands.size(), r.domains.at(i).candidates.size());
            for (qsizetype c = 0; c < cands.size(); ++c) {
                const CandidateVerdict &v = r.domains.at(i).candidates.at(c);
                const QJsonObject j = cands.at(c).toObject();
                QCOMPARE(j.value(QStringLiteral("id")).toString(), v.candidate.id);
                QCOMPARE(j.value(QStringLiteral("verdict")).toString(), verdictName(v.verdict));
                QCOMPARE(j.value(QStringLiteral("summary")).toString(), v.summary());
                QCOMPARE(j.value(QStringLiteral("evidence")).toArray().size(), v.evidence.size());
                ++lines;
            }
        }
        const QJsonArray actions = doc.value(QStringLiteral("actions")).toArray();
        QCOMPARE(actions.size(), r.actions.size());
        bool sawPayload = false;
        for (qsizetype i = 0; i < actions.size(); ++i) {
            const Action &a = r.actions.at(i);
            const QJsonObject j = actions.at(i).toObject();
            QCOMPARE(j.value(QStringLiteral("id")).toString(), a.id);
            QCOMPARE(j.value(QStringLiteral("kind")).toString(), actionKindName(a.kind));
            QCOMPARE(j.value(QStringLiteral("result")).toString(), actionResultName(a.result));
            QCOMPARE(j.value(QStringLiteral("reason")).toString(), a.reason);
            QCOMPARE(j.value(QStringLiteral("precondition"))
                         .toObject()
                         .value(QStringLiteral("updatedAt"))
                         .toString(),
                     a.precondition.updatedAtText);
            if (!a.payload.isEmpty()) {
                QCOMPARE(j.value(QStringLiteral("payload")).toObject(),
                         QJsonDocument::fromJson(a.payload).object());
                sawPayload = true;
            }
            ++lines;
        }
        QVERIFY(sawPayload);
        // A line per candidate and per action, so a long report can be read with grep.
        QVERIFY(out.data().count('\n') > lines);
        QCOMPARE(r.toJson(), doc);

        RunReport empty; // no domains, no actions
        QBuffer none;
        QVERIFY(none.open(QIODevice::WriteOnly));
        empty.writeJson(none);
        const QJsonObject nothing = QJsonDocument::fromJson(none.data(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, none.data().constData());
        QCOMPARE(nothing.value(QStringLiteral("domains")).toArray().size(), 0);
        QCOMPARE(nothing.value(QStringLiteral("actions")).toArray().size(), 0);
    }

    // Beyond run.scheduledListed a run counts healthy candidates without listing them: every
    // ABSENT and UNKNOWN one stays listed whatever its place, the counts are whole, the report
    // (both forms) says how many are not listed, and the orphans are recovered as ever.
    void healthyCandidatesBeyondTheLimitAreCountedNotListed()
    {
        World w;
        w.config.run.scheduledListed = 2;
        for (int i = 0; i < 8; ++i) {
            const QString id = QStringLiteral("ij_%1").arg(i);
            w.row(QStringLiteral("image"), id, {}, QStringLiteral("QUEUED"));
            // ij_3 and ij_7 are orphans, ij_5 cannot be looked up (UNKNOWN), the others wait.
            if (i % 4 != 3 && i != 5)
                w.queue.put(QStringLiteral("image-render"), QStringLiteral("image-") + id,
                            QStringLiteral("waiting"),
                            QByteArray(R"({"jobId":")") + id.toUtf8() + "\"}");
        }
        w.queue.failProbeOfJobId = QStringLiteral("image-ij_5");
        const RunReport r = w.run();
        const DomainReport *image = nullptr;
        for (const DomainReport &d : r.domains)
            if (d.name == QLatin1String("image"))
                image = &d;
        QVERIFY(image);
        QCOMPARE(image->count(Verdict::Scheduled), 5);
        QCOMPARE(image->count(Verdict::Absent), 2);
        QCOMPARE(image->count(Verdict::Unknown), 1);
        QCOMPARE(image->candidateCount(), 8);
        QStringList listed;
        for (const CandidateVerdict &v : image->candidates)
            listed << v.candidate.id;
        QCOMPARE(listed, (QStringList{QStringLiteral("ij_0"), QStringLiteral("ij_1"),
                                      QStringLiteral("ij_3"), QStringLiteral("ij_5"),
                                      QStringLiteral("ij_7")}));
        QCOMPARE(image->unlistedScheduled.toSet(),
                 (QSet<QString>{QStringLiteral("ij_2"), QStringLiteral("ij_4"),
                                QStringLiteral("ij_6")}));
        QCOMPARE(r.count(ActionResult::Applied), 2);
        const QJsonObject json = r.toJson();
        for (const QJsonValue &d : json.value(QStringLiteral("domains")).toArray())
            if (d.toObject().value(QStringLiteral("name")).toString() == QLatin1String("image")) {
                QCOMPARE(d.toObject().value(QStringLiteral("scheduledUnlisted")).toInt(), 3);
                QCOMPARE(d.toObject()
                             .value(QStringLiteral("counts"))
                             .toObject()
                             .value(QStringLiteral("SCHEDULED"))
                             .toInt(),
                         5);
                QCOMPARE(d.toObject().value(QStringLiteral("candidates")).toArray().size(), 5);
            }
        QBuffer out;
        QVERIFY(out.open(QIODevice::WriteOnly));
        r.writeJson(out);
        QCOMPARE(QJsonDocument::fromJson(out.data()).object(), json);
    }

    void stopRequestLeavesTheRestPending()
    {
        // Actions run in batches of one domain: a stop asked while the first batch runs lets
        // that batch finish and leaves the next one pending.
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_2"), {}, QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        std::atomic_bool stop = false;
        CallbackProgress progress([&](const QString &phase, int done, int) {
            if (phase == QLatin1String("execute") && done == 0)
                stop = true; // asked while the first batch runs
        });
        RunRequest request;
        request.stopRequested = &stop;
        request.progress = &progress;
        const RunReport r = w.run(request);
        QCOMPARE(r.actions.size(), 3);
        const QString first = r.actions.first().domain; // the first batch: its domain's actions
        for (const Action &a : r.actions)
            QCOMPARE(a.result, a.domain == first ? ActionResult::Applied : ActionResult::Pending);
        QCOMPARE(r.count(ActionResult::Applied), first == QLatin1String("image") ? 2 : 1);
        QCOMPARE(w.log.count(QStringLiteral("lock:release")), 1);
    }

    void withoutTheJobStoreNothingIsTouched()
    {
        World w;
        RecoveryRun run(w.config, nullptr,
                        QStringLiteral("cannot connect to PostgreSQL at postgresql://u:***@db/app"),
                        w.queue, w.queue, w.queue);
        const RunReport r = run.run({});
        QCOMPARE(r.outcome, RunReport::Outcome::Failed);
        QVERIFY(r.outcomeDetail.contains(QStringLiteral("cannot connect to PostgreSQL")));
        QVERIFY(w.log.isEmpty());
        QVERIFY(w.queue.lockHolder.isEmpty());
    }

    void candidateReadErrorIsReportedAndWritesNothing()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.store.readError = StoreError{QStringLiteral("statement timeout")};
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::Completed);
        for (const DomainReport &d : r.domains) {
            QVERIFY(d.candidateError);
            QVERIFY(d.candidates.isEmpty());
        }
        QVERIFY(r.actions.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
    }

    void fencedAtStartFailsAndReleases()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        // A newer generation started after this run read the fence as its floor.
        w.store.fence = 50;
        w.store.staleFenceRead = 0;
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::Failed);
        QVERIFY(r.outcomeDetail.contains(QStringLiteral("fenced")));
        QVERIFY(r.lock.released);
        QVERIFY(w.queue.lockHolder.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("store:readCandidates")));
        QVERIFY(!w.logged(QStringLiteral("queue:")));
    }

    // A lease whose TTL ran out before it could be renewed: the run finishes looking, but
    // issues no write at all.
    // A flushed Redis restarts its counter below PostgreSQL's fence: the acquire raises it
    // instead of every run being fenced at its start forever.
    void aGenerationBehindTheFenceIsRaisedAboveIt()
    {
        World w;
        w.store.fence = 50;
        const RunReport r = w.run();
        QCOMPARE(r.outcome, RunReport::Outcome::Completed);
        QCOMPARE(r.lock.generation, 51);
        QCOMPARE(r.lock.raisedFrom, 1);
        QCOMPARE(w.store.fence, 51);
    }

    void lostLockIssuesNoWrites()
    {
        World w;
        w.config.run.lockTtl = std::chrono::seconds(0);
        w.row(QStringLiteral("video"), QStringLiteral("vj_c"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_c"), QByteArray(R"({"jobId":"vj_c"})"));
        const RunReport r = w.run();
        QCOMPARE(r.actions.size(), 2);
        QCOMPARE(r.count(ActionResult::LockLost), 2);
        QVERIFY(r.lock.lost);
        QVERIFY(!w.logged(QStringLiteral("queue:enqueue")));
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QVERIFY(w.store.audit.isEmpty());
    }

    // A rejected action is not executed by an automatic run while its row is unchanged, and is
    // executed once the operator has undone the rejection.
    void aRejectedActionIsNotExecutedUntilUndone()
    {
        World w;
        w.row(QStringLiteral("video"), QStringLiteral("vj_1"), QStringLiteral("EXPORT"),
              QStringLiteral("PROCESSING"));
        RunRequest observe;
        observe.executeActions = false;
        const RunReport planned = w.run(observe);
        const Action *a = findAction(planned, QStringLiteral("video/vj_1"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Pending);
        const Actor alice{
            QStringLiteral("operator"), QStringLiteral("ops1"), QStringLiteral("alice"), {}};
        QVERIFY(w.store.recordRejection(*a, alice).hasValue());
        QCOMPARE(w.store.audit.last().result, ActionResult::Rejected);

        const RunReport again = w.run();
        const Action *b = findAction(again, QStringLiteral("video/vj_1"));
        QVERIFY(b);
        QCOMPARE(b->result, ActionResult::Rejected);
        QCOMPARE(b->rejectedBy, QStringLiteral("alice@ops1"));
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_1")).status, QStringLiteral("PROCESSING"));

        QCOMPARE(*w.store.undoRejection(*b, alice), 1);
        const RunReport afterUndo = w.run();
        const Action *c = findAction(afterUndo, QStringLiteral("video/vj_1"));
        QVERIFY(c);
        QCOMPARE(c->result, ActionResult::Applied);
        QVERIFY(w.logged(QStringLiteral("store:apply:vj_1")));
    }

    void lockIsReleasedAtTheEnd()
    {
        World w;
        w.row(QStringLiteral("image"), QStringLiteral("ij_1"), {}, QStringLiteral("PROCESSING"));
        const RunReport r = w.run();
        QCOMPARE(r.lock.state, LockReport::State::Acquired);
        QVERIFY(r.lock.released);
        QVERIFY(w.queue.lockHolder.isEmpty());
        QCOMPARE(r.lock.generation, 1);
        QCOMPARE(w.store.fence, 1);
    }
};

QTEST_GUILESS_MAIN(TestRecoveryRun)
#include "test_recoveryrun.moc"
