// Stage 3, the direct lookup: every BullMQ state maps to the right provisional verdict, a failed
// lookup is UNKNOWN (never "missing"), a domain's queues are tried in order until one has the
// job runnable, and lists too long for the probe are read once, wait before active.
#include "recovery/directlookup.h"
#include "recovery/runlookup.h"
#include "support/fakes.h"
#include "testprint.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const DomainConfig &video(const ReclaimConfig &c)
{
    return c.domains.at(0);
}

Candidate candidate(const QString &id, const QString &type = QStringLiteral("COMPOSE"))
{
    return Candidate{QStringLiteral("video"),
                     id,
                     type,
                     QStringLiteral("PROCESSING"),
                     QStringLiteral("2026-01-01 10:00:00.123"),
                     {},
                     {}};
}

} // namespace

class TestDirectLookup : public QObject
{
    Q_OBJECT
private slots:
    // A mass recovery holds every verdict for the run: a healthy job's payload is let go, the
    // payload of a job an operator may act on (ABSENT: retained finished; UNKNOWN) is kept.
    void onlyScheduledVerdictsLetTheirDetailsGo()
    {
        const auto verdict = [](Verdict v, const QString &state) {
            Sighting s;
            s.queue = QStringLiteral("video-generation");
            s.jobId = QStringLiteral("video-compose-") + state;
            s.state = state;
            s.data = QByteArrayLiteral("{\"jobId\":\"") + state.toUtf8() + "\"}";
            Candidate c = candidate(state);
            c.rowJson = QByteArrayLiteral("{\"id\":\"") + state.toUtf8() + "\"}";
            return CandidateVerdict{c, v, {s}, {}, false};
        };
        QList<CandidateVerdict> verdicts{verdict(Verdict::Scheduled, QStringLiteral("waiting")),
                                         verdict(Verdict::Absent, QStringLiteral("completed")),
                                         verdict(Verdict::Unknown, QStringLiteral("archived"))};
        releaseScheduledDetails(verdicts);
        QVERIFY(verdicts.at(0).evidence.first().data.isEmpty());
        QVERIFY(verdicts.at(0).candidate.rowJson.isEmpty());
        QCOMPARE(verdicts.at(1).candidate.rowJson, QByteArray("{\"id\":\"completed\"}"));
        QCOMPARE(verdicts.at(2).candidate.rowJson, QByteArray("{\"id\":\"archived\"}"));
        QCOMPARE(verdicts.at(0).evidence.first().state, QStringLiteral("waiting"));
        QCOMPARE(verdicts.at(1).evidence.first().data, QByteArray("{\"jobId\":\"completed\"}"));
        QCOMPARE(verdicts.at(2).evidence.first().data, QByteArray("{\"jobId\":\"archived\"}"));
    }

    void stateToVerdict_data()
    {
        QTest::addColumn<QString>("state");
        QTest::addColumn<Verdict>("verdict");
        QTest::newRow("waiting") << QStringLiteral("waiting") << Verdict::Scheduled;
        QTest::newRow("active") << QStringLiteral("active") << Verdict::Scheduled;
        QTest::newRow("delayed") << QStringLiteral("delayed") << Verdict::Scheduled;
        QTest::newRow("prioritized") << QStringLiteral("prioritized") << Verdict::Scheduled;
        QTest::newRow("paused") << QStringLiteral("paused") << Verdict::Scheduled;
        QTest::newRow("waiting-children")
            << QStringLiteral("waiting-children") << Verdict::Scheduled;
        // BullMQ retains finished jobs: a job object under the id proves nothing.
        QTest::newRow("completed") << QStringLiteral("completed") << Verdict::Absent;
        QTest::newRow("failed") << QStringLiteral("failed") << Verdict::Absent;
        QTest::newRow("stray hash") << QStringLiteral("stray") << Verdict::Absent;
        QTest::newRow("no job") << QString() << Verdict::Absent;
        // #28 case 6: only missing, stray, completed and failed mean "not runnable"; an answer
        // this code does not know is "could not look".
        QTest::newRow("unknown state") << QStringLiteral("archived") << Verdict::Unknown;
    }
    void stateToVerdict()
    {
        QFETCH(QString, state);
        QFETCH(Verdict, verdict);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        const QString jobId = QStringLiteral("video-compose-vj_1");
        if (!state.isEmpty())
            queue.put(QStringLiteral("video-generation"), jobId, state);
        const auto verdicts =
            lookUpDirectly(video(config), {candidate(QStringLiteral("vj_1"))}, queue);
        QCOMPARE(verdicts.size(), 1);
        QCOMPARE(verdicts.first().verdict, verdict);
        const Sighting &first = verdicts.first().evidence.first();
        QCOMPARE(first.queue, QStringLiteral("video-generation"));
        QCOMPARE(first.jobId, jobId);
        QCOMPARE(first.how, FoundBy::Direct);
        QCOMPARE(first.state, state.isEmpty() ? QStringLiteral("missing") : state);
        // Not found runnable in the first queue: the second queue is asked too.
        const int expectedSightings = verdict == Verdict::Scheduled ? 1 : 2;
        QCOMPARE(verdicts.first().evidence.size(), expectedSightings);
    }

    // A worker's live lock on a job that no state structure lists (a worker took it and BullMQ's
    // bookkeeping is mid-move, or someone LREM'd it by hand) is evidence the job is being worked
    // on: never ABSENT. Without the lock the same job is ABSENT, so the lock alone decides.
    void aWorkerLockIsEvidenceOfWork_data()
    {
        QTest::addColumn<QString>("state");
        QTest::addColumn<qint64>("lockTtlMs");
        QTest::addColumn<Verdict>("verdict");
        QTest::newRow("stray, live lock")
            << QStringLiteral("stray") << qint64(20000) << Verdict::Scheduled;
        QTest::newRow("stray, lock without expiry")
            << QStringLiteral("stray") << qint64(-1) << Verdict::Scheduled;
        QTest::newRow("completed, live lock")
            << QStringLiteral("completed") << qint64(5000) << Verdict::Scheduled;
        QTest::newRow("stray, no lock") << QStringLiteral("stray") << qint64(-2) << Verdict::Absent;
        QTest::newRow("completed, no lock")
            << QStringLiteral("completed") << qint64(-2) << Verdict::Absent;
    }
    void aWorkerLockIsEvidenceOfWork()
    {
        QFETCH(QString, state);
        QFETCH(qint64, lockTtlMs);
        QFETCH(Verdict, verdict);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_1"), state,
                  {}, lockTtlMs);
        const auto verdicts =
            lookUpDirectly(video(config), {candidate(QStringLiteral("vj_1"))}, queue);
        QCOMPARE(verdicts.first().verdict, verdict);
        if (verdict == Verdict::Scheduled) {
            QCOMPARE(verdicts.first().evidence.size(), 1); // the lock ends the lookups
            QCOMPARE(verdicts.first().evidence.first().lockTtlMs, lockTtlMs);
            QVERIFY2(verdicts.first().summary().contains(QStringLiteral("held by a worker")),
                     qPrintable(verdicts.first().summary()));
        }
    }

    void usesTheCurrentIdRule()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-export"), QStringLiteral("video-export-vj_9"),
                  QStringLiteral("delayed"));
        const auto verdicts = lookUpDirectly(
            video(config), {candidate(QStringLiteral("vj_9"), QStringLiteral("EXPORT"))}, queue);
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.first().evidence.last().jobId, QStringLiteral("video-export-vj_9"));
    }

    void foundInTheSecondQueue()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-export"), QStringLiteral("video-compose-vj_2"),
                  QStringLiteral("waiting"));
        const auto verdicts =
            lookUpDirectly(video(config), {candidate(QStringLiteral("vj_2"))}, queue);
        const CandidateVerdict &v = verdicts.first();
        QCOMPARE(v.verdict, Verdict::Scheduled);
        QCOMPARE(v.evidence.size(), 2);
        QCOMPARE(v.evidence.at(0).queue, QStringLiteral("video-generation"));
        QCOMPARE(v.evidence.at(0).state, QStringLiteral("missing"));
        QCOMPARE(v.evidence.at(1).queue, QStringLiteral("video-export"));
        QCOMPARE(v.evidence.at(1).state, QStringLiteral("waiting"));
        QVERIFY(v.summary().contains(QStringLiteral("video-export: waiting")));
    }

    void firstRunnableEndsTheLookups()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_a"),
                  QStringLiteral("active"), {}, 25000);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_b"),
                  QStringLiteral("waiting"));
        const auto verdicts = lookUpDirectly(
            video(config), {candidate(QStringLiteral("vj_a")), candidate(QStringLiteral("vj_b"))},
            queue);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.at(0).evidence.size(), 1);
        QCOMPARE(verdicts.at(0).evidence.first().lockTtlMs, 25000);
        QVERIFY(verdicts.at(0).summary().contains(QStringLiteral("worker lock 25 s")));
        // Both found in the first queue: one batched probe, and the second queue is never asked.
        QCOMPARE(log, (CallLog{QStringLiteral("queue:probe:2")}));
    }

    void lookupsAreBatchedPerQueue()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        QList<Candidate> many;
        for (int i = 0; i < 50; ++i)
            many << candidate(QStringLiteral("vj_%1").arg(i));
        const auto verdicts = lookUpDirectly(video(config), many, queue);
        QCOMPARE(verdicts.size(), 50);
        QCOMPARE(log,
                 (CallLog{QStringLiteral("queue:probe:50"), QStringLiteral("queue:probe:50")}));
    }

    // A lost Redis: tens of thousands of candidates. They are probed in slices (the requests
    // and replies of one slice held at a time), each queue's long lists are still read once,
    // after every probe of that queue, and a run's lookup (lookUpIntoReport) asks the queue the
    // same questions in the same order and reaches the same verdicts as the full one, keeping
    // payloads and row JSON only where an operator may act.
    void aRunsLookupAsksTheSameAndReachesTheSameVerdicts()
    {
        const ReclaimConfig config = fakeConfig();
        const int n = 12001;
        QList<Candidate> many;
        for (int i = 0; i < n; ++i) {
            Candidate c = candidate(QStringLiteral("vj_%1").arg(i));
            c.rowJson = QByteArrayLiteral("{\"row\":") + QByteArray::number(i) + "}";
            many << c;
        }
        const auto world = [](FakeQueue &q) {
            q.listsTooLong = true; // every waiting job needs the lists read
            for (int i = 0; i < 12001; i += 2)
                q.put(QStringLiteral("video-generation"),
                      QStringLiteral("video-compose-vj_%1").arg(i), QStringLiteral("waiting"),
                      QByteArrayLiteral("{\"w\":1}"));
            q.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_1"),
                  QStringLiteral("completed"), QByteArrayLiteral("{\"done\":1}"));
            q.failProbeOfJobId = QStringLiteral("video-compose-vj_3");
        };
        CallLog fullLog;
        FakeQueue fullQueue(&fullLog);
        world(fullQueue);
        const auto full = lookUpDirectly(video(config), many, fullQueue);
        CallLog runLog;
        FakeQueue runQueue(&runLog);
        world(runQueue);
        DomainReport run;
        lookUpIntoReport(run, video(config), many, runQueue, n);

        // The odd ones (not waiting) go on to the second queue; the even ones do not.
        const CallLog expected{QStringLiteral("queue:probe:5000"),
                               QStringLiteral("queue:probe:5000"),
                               QStringLiteral("queue:probe:2001"),
                               QStringLiteral("queue:list:video-generation:wait"),
                               QStringLiteral("queue:list:video-generation:paused"),
                               QStringLiteral("queue:list:video-generation:active"),
                               QStringLiteral("queue:probe:5000"),
                               QStringLiteral("queue:probe:1000")};
        QCOMPARE(fullLog, expected);
        QCOMPARE(runLog, expected);
        QCOMPARE(full.size(), n);
        QCOMPARE(run.candidates.size(), n);
        QVERIFY(run.unlistedScheduled.isEmpty());
        for (int i = 0; i < n; ++i) {
            const CandidateVerdict &r = run.candidates.at(i);
            QCOMPARE(r.verdict, full.at(i).verdict);
            QCOMPARE(r.candidate.id, many.at(i).id);
            QCOMPARE(r.candidate.updatedAtText, many.at(i).updatedAtText);
            QCOMPARE(r.unknownReason, full.at(i).unknownReason);
            QCOMPARE(r.evidence.size(), full.at(i).evidence.size());
            for (qsizetype k = 0; k < r.evidence.size(); ++k) {
                QCOMPARE(r.evidence.at(k).queue, full.at(i).evidence.at(k).queue);
                QCOMPARE(r.evidence.at(k).jobId, full.at(i).evidence.at(k).jobId);
                QCOMPARE(r.evidence.at(k).state, full.at(i).evidence.at(k).state);
                QCOMPARE(r.evidence.at(k).error, full.at(i).evidence.at(k).error);
            }
        }
        QCOMPARE(full.at(0).verdict, Verdict::Scheduled);
        QCOMPARE(full.at(0).evidence.first().state, QStringLiteral("waiting"));
        QCOMPARE(full.at(1).verdict, Verdict::Absent);
        QCOMPARE(full.at(3).verdict, Verdict::Unknown);
        QCOMPARE(full.at(5).verdict, Verdict::Absent);
        // Full keeps everything; the run lets a healthy job's payload and row go, and keeps them
        // for the ABSENT retained job and the UNKNOWN one.
        QCOMPARE(full.at(0).evidence.first().data, QByteArray("{\"w\":1}"));
        QCOMPARE(full.at(0).candidate.rowJson, QByteArray("{\"row\":0}"));
        QVERIFY(run.candidates.at(0).evidence.first().data.isEmpty());
        QVERIFY(run.candidates.at(0).candidate.rowJson.isEmpty());
        QCOMPARE(run.candidates.at(1).evidence.first().data, QByteArray("{\"done\":1}"));
        QCOMPARE(run.candidates.at(1).candidate.rowJson, QByteArray("{\"row\":1}"));
        QCOMPARE(run.candidates.at(3).candidate.rowJson, QByteArray("{\"row\":3}"));
    }

    // Beyond the listed ones a run's lookup keeps a healthy candidate's row id only, whether its
    // job was found by the probe or only once the long lists were read; every ABSENT and UNKNOWN
    // one is kept, in the order read, and the lists are still read once.
    void aRunsLookupCountsHealthyCandidatesBeyondTheListed()
    {
        const ReclaimConfig config = fakeConfig();
        QList<Candidate> rows;
        for (int i = 0; i < 10; ++i)
            rows << candidate(QStringLiteral("vj_%1").arg(i));
        CallLog log;
        FakeQueue queue(&log);
        queue.listsTooLong = true;
        // vj_0..vj_5 wait (found by reading the lists), vj_6 is delayed (found by the probe),
        // vj_7 is missing everywhere, vj_8 cannot be looked up, vj_9 is a job in no list.
        for (int i = 0; i < 6; ++i)
            queue.put(QStringLiteral("video-generation"),
                      QStringLiteral("video-compose-vj_%1").arg(i), QStringLiteral("waiting"),
                      QByteArrayLiteral("{}"));
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_6"),
                  QStringLiteral("delayed"), QByteArrayLiteral("{}"));
        queue.failProbeOfJobId = QStringLiteral("video-compose-vj_8");
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_9"),
                  QStringLiteral("stray"), QByteArrayLiteral("{}"));
        DomainReport report;
        lookUpIntoReport(report, video(config), rows, queue, 2);

        QCOMPARE(report.candidateCount(), 10);
        QCOMPARE(report.count(Verdict::Scheduled), 7);
        QCOMPARE(report.count(Verdict::Absent), 2);
        QCOMPARE(report.count(Verdict::Unknown), 1);
        QStringList kept;
        for (const CandidateVerdict &v : report.candidates)
            kept << v.candidate.id;
        // vj_6 was found healthy first (by the probe), then vj_0 (by the lists).
        QCOMPARE(kept, (QStringList{QStringLiteral("vj_0"), QStringLiteral("vj_6"),
                                    QStringLiteral("vj_7"), QStringLiteral("vj_8"),
                                    QStringLiteral("vj_9")}));
        QCOMPARE(
            report.unlistedScheduled.toSet(),
            (QSet<QString>{QStringLiteral("vj_1"), QStringLiteral("vj_2"), QStringLiteral("vj_3"),
                           QStringLiteral("vj_4"), QStringLiteral("vj_5")}));
        QCOMPARE(report.candidates.at(0).evidence.first().state, QStringLiteral("waiting"));
        QCOMPARE(report.candidates.at(4).evidence.first().state, QStringLiteral("stray"));
        QCOMPARE(log.count(QStringLiteral("queue:list:video-generation:wait")), 1);
    }

    // A long list that cannot be read to its end: every lookup that waited for it is UNKNOWN
    // in a run's lookup too, never "stray" (which would read as absent).
    void aRunsLookupWhoseListCannotBeReadIsUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.listsTooLong = true;
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_1"),
                  QStringLiteral("waiting"), QByteArrayLiteral("{}"));
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-compose-vj_2"),
                  QStringLiteral("stray"), QByteArrayLiteral("{}"));
        queue.listError = RedisError{RedisError::Kind::Timeout,
                                     QStringLiteral("127.0.0.1:6379 did not answer in time")};
        DomainReport report;
        lookUpIntoReport(report, video(config),
                         {candidate(QStringLiteral("vj_1")), candidate(QStringLiteral("vj_2"))},
                         queue, 0);
        QCOMPARE(report.candidates.size(), 2);
        for (const CandidateVerdict &v : report.candidates) {
            QCOMPARE(v.verdict, Verdict::Unknown);
            QVERIFY2(v.unknownReason.contains(QStringLiteral("did not answer")),
                     qPrintable(v.unknownReason));
        }
        QVERIFY(report.unlistedScheduled.isEmpty());
    }

    void lookupErrorIsUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.probeError = RedisError{RedisError::Kind::Timeout,
                                      QStringLiteral("127.0.0.1:6379 did not answer in time")};
        const auto verdicts =
            lookUpDirectly(video(config), {candidate(QStringLiteral("vj_3"))}, queue);
        const CandidateVerdict &v = verdicts.first();
        QCOMPARE(v.verdict, Verdict::Unknown);
        QVERIFY(v.evidence.first().failed());
        QVERIFY(v.evidence.first().state.isEmpty());
        QVERIFY(!v.evidence.first().runnable());
        QVERIFY2(v.unknownReason.contains(QStringLiteral("did not answer")),
                 qPrintable(v.unknownReason));
        QVERIFY(v.summary().startsWith(QStringLiteral("unknown:")));
    }

    // One queue could not be read, the other says "missing": that is not proof of absence.
    void errorInOneQueueAndMissingInTheOtherIsUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.failProbeOfJobId = QStringLiteral("video-compose-vj_4");
        const auto verdicts = lookUpDirectly(
            video(config), {candidate(QStringLiteral("vj_4")), candidate(QStringLiteral("vj_5"))},
            queue);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        // Only that candidate's lookup failed: its neighbour is judged normally.
        QCOMPARE(verdicts.at(1).verdict, Verdict::Absent);
        QVERIFY(!verdicts.at(1).evidence.first().failed());
    }

    // A runnable sighting is positive evidence even when another queue could not be read.
    void errorInOneQueueButRunnableInTheOtherIsScheduled()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-export"), QStringLiteral("video-compose-vj_6"),
                  QStringLiteral("waiting"));
        int probes = 0;
        queue.afterProbe = [&] {
            if (++probes == 1)
                queue.failProbeOfJobId.clear();
        };
        queue.failProbeOfJobId = QStringLiteral("video-compose-vj_6");
        const auto verdicts =
            lookUpDirectly(video(config), {candidate(QStringLiteral("vj_6"))}, queue);
        QCOMPARE(verdicts.first().evidence.size(), 2);
        QVERIFY(verdicts.first().evidence.at(0).failed());
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QVERIFY(verdicts.first().unknownReason.isEmpty());
    }

    void longListsAreReadOnce_data()
    {
        QTest::addColumn<QString>("state");
        QTest::addColumn<Verdict>("verdict");
        QTest::addColumn<QString>("resolved");
        QTest::newRow("waiting") << QStringLiteral("waiting") << Verdict::Scheduled
                                 << QStringLiteral("waiting");
        QTest::newRow("paused") << QStringLiteral("paused") << Verdict::Scheduled
                                << QStringLiteral("paused");
        QTest::newRow("active") << QStringLiteral("active") << Verdict::Scheduled
                                << QStringLiteral("active");
        QTest::newRow("in no list")
            << QStringLiteral("stray") << Verdict::Absent << QStringLiteral("stray");
    }
    void longListsAreReadOnce()
    {
        QFETCH(QString, state);
        QFETCH(Verdict, verdict);
        QFETCH(QString, resolved);
        const ReclaimConfig config = fakeConfig();
        const DomainConfig &image = config.domains.at(1);
        CallLog log;
        FakeQueue queue(&log);
        queue.listsTooLong = true;
        queue.put(QStringLiteral("image-render"), QStringLiteral("image-ij_1"), state);
        queue.put(QStringLiteral("image-render"), QStringLiteral("image-ij_2"),
                  QStringLiteral("waiting"));
        const Candidate a{QStringLiteral("image"),
                          QStringLiteral("ij_1"),
                          {},
                          QStringLiteral("QUEUED"),
                          QStringLiteral("t"),
                          {},
                          {}};
        const Candidate b{QStringLiteral("image"),
                          QStringLiteral("ij_2"),
                          {},
                          QStringLiteral("QUEUED"),
                          QStringLiteral("t"),
                          {},
                          {}};
        const auto verdicts = lookUpDirectly(image, {a, b}, queue);
        QCOMPARE(verdicts.at(0).verdict, verdict);
        QCOMPARE(verdicts.at(0).evidence.first().state, resolved);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Scheduled);
        // Each list read once for both candidates, wait and paused before active.
        QCOMPARE(log, (CallLog{QStringLiteral("queue:probe:2"),
                               QStringLiteral("queue:list:image-render:wait"),
                               QStringLiteral("queue:list:image-render:paused"),
                               QStringLiteral("queue:list:image-render:active")}));
    }

    void failedListReadIsUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        const DomainConfig &image = config.domains.at(1);
        CallLog log;
        FakeQueue queue(&log);
        queue.listsTooLong = true;
        queue.listError = RedisError{RedisError::Kind::Io, QStringLiteral("connection reset")};
        queue.put(QStringLiteral("image-render"), QStringLiteral("image-ij_1"),
                  QStringLiteral("waiting"));
        const Candidate a{QStringLiteral("image"),
                          QStringLiteral("ij_1"),
                          {},
                          QStringLiteral("QUEUED"),
                          QStringLiteral("t"),
                          {},
                          {}};
        const auto verdicts = lookUpDirectly(image, {a}, queue);
        QCOMPARE(verdicts.first().verdict, Verdict::Unknown);
        QVERIFY(verdicts.first().evidence.first().failed());
        QVERIFY(verdicts.first().evidence.first().state.isEmpty());
    }

    void noCandidatesNoLookups()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        QVERIFY(lookUpDirectly(video(config), {}, queue).isEmpty());
        QVERIFY(log.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestDirectLookup)
#include "test_directlookup.moc"
