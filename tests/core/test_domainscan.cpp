// Stage 4, the domain scan: it runs only for unresolved candidates, reads runnable states page by
// page with active last, finds legacy ids by payload data.jobId, and a failed page makes the
// still-unresolved candidates UNKNOWN — never ABSENT.
#include "recovery/directlookup.h"
#include "recovery/domainscan.h"
#include "support/fakes.h"
#include "testprint.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

Candidate candidate(const QString &id)
{
    return Candidate{QStringLiteral("video"),
                     id,
                     QStringLiteral("GENERATE"),
                     QStringLiteral("QUEUED"),
                     QStringLiteral("2026-01-01 10:00:00.123"),
                     {},
                     {}};
}

CandidateVerdict provisional(const QString &id, Verdict v)
{
    return CandidateVerdict{candidate(id), v, {}, {}, false};
}

QByteArray payloadFor(const QString &rowId)
{
    return QStringLiteral("{\"jobId\":\"%1\",\"videoId\":\"vd_1\"}").arg(rowId).toUtf8();
}

QStringList scanEntries(const CallLog &log)
{
    QStringList out;
    for (const QString &e : log)
        if (e.startsWith(QLatin1String("queue:scan:")))
            out << e.mid(11);
    return out;
}

} // namespace

class TestDomainScan : public QObject
{
    Q_OBJECT
private slots:
    void nothingUnresolvedNoScan()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Scheduled),
                                         provisional(QStringLiteral("vj_2"), Verdict::Scheduled)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(!stats.ran);
        QVERIFY(log.isEmpty());
    }

    // A candidate directly found runnable never triggers the scan, from lookup to scan.
    void successfulDirectLookupSkipsTheScan()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-generate-vj_1"),
                  QStringLiteral("waiting"));
        auto verdicts =
            lookUpDirectly(config.domains.at(0), {candidate(QStringLiteral("vj_1"))}, queue);
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(!stats.ran);
        QVERIFY(scanEntries(log).isEmpty());
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
    }

    void legacyIdFoundByPayload_data()
    {
        QTest::addColumn<QString>("rowId");
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<Verdict>("verdict");
        QTest::newRow("string id")
            << QStringLiteral("vj_1") << QByteArray(R"({"jobId":"vj_1"})") << Verdict::Scheduled;
        QTest::newRow("numeric id")
            << QStringLiteral("42") << QByteArray(R"({"jobId":42})") << Verdict::Scheduled;
        QTest::newRow("another row")
            << QStringLiteral("vj_1") << QByteArray(R"({"jobId":"vj_10"})") << Verdict::Absent;
        QTest::newRow("no jobId") << QStringLiteral("vj_1") << QByteArray(R"({"videoId":"vj_1"})")
                                  << Verdict::Absent;
    }
    void legacyIdFoundByPayload()
    {
        QFETCH(QString, rowId);
        QFETCH(QByteArray, payload);
        QFETCH(Verdict, verdict);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-export"), QStringLiteral("17"), QStringLiteral("delayed"),
                  payload);
        auto verdicts = lookUpDirectly(config.domains.at(0), {candidate(rowId)}, queue);
        QCOMPARE(verdicts.first().verdict, Verdict::Absent); // the current id is nowhere
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(stats.ran);
        QVERIFY(!stats.error);
        QCOMPARE(stats.malformed, 0);
        QCOMPARE(verdicts.first().verdict, verdict);
        if (verdict == Verdict::Scheduled) {
            const Sighting &s = verdicts.first().evidence.last();
            QCOMPARE(s.how, FoundBy::Scan);
            QCOMPARE(s.jobId, QStringLiteral("17"));
            QCOMPARE(s.queue, QStringLiteral("video-export"));
            QCOMPARE(s.state, QStringLiteral("delayed"));
            QVERIFY(verdicts.first().summary().contains(QStringLiteral("legacy id 17")));
        } else {
            QVERIFY(verdicts.first().scanned);
            QVERIFY(verdicts.first().summary().contains(QStringLiteral("scan found no match")));
        }
    }

    // Active is read first in every queue (and again last), and pages continue past the first
    // 200 jobs.
    void activeFirstAndEveryPage()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        for (int i = 0; i < 450; ++i)
            queue.put(QStringLiteral("video-generation"),
                      QStringLiteral("j%1").arg(i, 4, 10, QLatin1Char('0')),
                      QStringLiteral("active"), payloadFor(QStringLiteral("busy_%1").arg(i)));
        // Replaces j0430, sorted after 400 others: only the third page of active has it.
        queue.put(QStringLiteral("video-generation"), QStringLiteral("j0430"),
                  QStringLiteral("active"), payloadFor(QStringLiteral("vj_legacy")));
        queue.put(QStringLiteral("video-generation"), QStringLiteral("w1"),
                  QStringLiteral("waiting"), payloadFor(QStringLiteral("other")));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_legacy"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.first().evidence.last().jobId, QStringLiteral("j0430"));
        QCOMPARE(verdicts.first().evidence.last().state, QStringLiteral("active"));
        const QStringList expected{QStringLiteral("video-generation:active:0"),
                                   QStringLiteral("video-generation:active:200"),
                                   QStringLiteral("video-generation:active:400")};
        // Once every unresolved candidate is found the scan stops: nothing else is read.
        QCOMPARE(scanEntries(log), expected);
        QCOMPARE(stats.pages, expected.size());
        QCOMPARE(stats.jobsRead, 450);
    }

    // The states are read upstream first, active both first and last, queue by queue; paused
    // and wait again after prioritized, continuing where they ended (#28 case 3).
    void upstreamFirstActiveTwice()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_gone"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QStringList expected;
        for (const QString &q : config.domains.at(0).queues)
            for (const char *s : {"active", "waiting-children", "delayed", "paused", "wait",
                                  "prioritized", "paused", "wait", "active"})
                expected << QStringLiteral("%1:%2:0").arg(q, QLatin1String(s));
        QCOMPARE(scanEntries(log), expected);
        QCOMPARE(verdicts.first().verdict, Verdict::Absent);
        QVERIFY(!stats.error);
    }

    void pageSizeIsRespected()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        for (int i = 0; i < 5; ++i)
            queue.put(QStringLiteral("video-export"), QString::number(i), QStringLiteral("waiting"),
                      payloadFor(QStringLiteral("x%1").arg(i)));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("x4"), Verdict::Absent)};
        scanDomain(config.domains.at(0), verdicts, queue, 2);
        const QStringList entries = scanEntries(log);
        QVERIFY(entries.contains(QStringLiteral("video-export:wait:0")));
        QVERIFY(entries.contains(QStringLiteral("video-export:wait:2")));
        QVERIFY(entries.contains(QStringLiteral("video-export:wait:4")));
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
    }

    // The race active-last protects against: the job is taken by a worker (wait → active) while
    // the scan runs. Whatever page is read first, the job must still be seen in one of them.
    void jobMovingToActiveDuringTheScanIsSeen()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("9"),
                  QStringLiteral("waiting"), payloadFor(QStringLiteral("vj_moving")));
        bool moved = false;
        queue.afterScanPage = [&](const QString &q, const QString &, qint64) {
            if (moved || q != QLatin1String("video-generation"))
                return;
            moved = true;
            queue.put(QStringLiteral("video-generation"), QStringLiteral("9"),
                      QStringLiteral("active"), payloadFor(QStringLiteral("vj_moving")));
        };
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_moving"), Verdict::Absent)};
        scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(moved);
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
    }

    void failedPageMakesUnresolvedUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("3"),
                  QStringLiteral("delayed"), payloadFor(QStringLiteral("vj_found")));
        queue.failScanPage = QStringLiteral("video-generation:wait:0");
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_found"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_gone"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(stats.error);
        QVERIFY2(stats.error->contains(QStringLiteral("injected scan failure")),
                 qPrintable(*stats.error));
        QCOMPARE(verdicts.at(0).verdict,
                 Verdict::Scheduled); // seen before the failure: real evidence
        QCOMPARE(verdicts.at(1).verdict, Verdict::Unknown); // not proven absent
        QVERIFY(verdicts.at(1).unknownReason.contains(QStringLiteral("video-generation/wait")));
        // The scan stops at the failure: the second queue is not read.
        QCOMPARE(scanEntries(log).last(), QStringLiteral("video-generation:wait:0"));
        QVERIFY(!scanEntries(log).contains(QStringLiteral("video-export:wait:0")));
    }

    void everyPageFailingMakesEveryUnresolvedUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.scanError = RedisError{RedisError::Kind::Timeout, QStringLiteral("slow")};
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_2"), Verdict::Scheduled)};
        scanDomain(config.domains.at(0), verdicts, queue, 200);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Scheduled);
        QCOMPARE(scanEntries(log).size(), 1);
    }

    // A candidate whose direct lookup failed is not "looked and found nothing" because the scan
    // found nothing: the failed lookup could have been the one that would have seen it.
    void unknownStaysUnknownWhenTheScanFindsNothing()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.failProbeOfJobId = QStringLiteral("video-generate-vj_1");
        queue.put(QStringLiteral("video-generation"), QStringLiteral("8"),
                  QStringLiteral("prioritized"), payloadFor(QStringLiteral("vj_2")));
        auto verdicts = lookUpDirectly(
            config.domains.at(0),
            {candidate(QStringLiteral("vj_1")), candidate(QStringLiteral("vj_2"))}, queue);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Absent);
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(!stats.error);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Scheduled);
    }

    void unknownFoundByTheScanIsScheduled()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("5"),
                  QStringLiteral("waiting"), payloadFor(QStringLiteral("vj_1")));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Unknown)};
        verdicts[0].unknownReason = QStringLiteral("video-generation: timeout");
        scanDomain(config.domains.at(0), verdicts, queue, 200);
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QVERIFY(verdicts.first().unknownReason.isEmpty());
    }

    void malformedPayloadsAreSkippedAndCounted_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("malformed");
        QTest::newRow("not json") << QByteArray("{jobId: vj_1") << 1;
        QTest::newRow("cut short") << QByteArray("{\"jobId\":\"vj_1\",\"video\":\"abc") << 1;
        QTest::newRow("two values") << QByteArray("1 2") << 1;
        QTest::newRow("empty") << QByteArray("") << 1;
        // #28 case 9: BullMQ takes any JSON as data. Such a job is read, and names no row.
        QTest::newRow("json array") << QByteArray("[1,2]") << 0;
        QTest::newRow("json string") << QByteArray("\"vj_1\"") << 0;
        QTest::newRow("json number") << QByteArray("42") << 0;
        QTest::newRow("json null") << QByteArray("null") << 0;
        QTest::newRow("json true") << QByteArray(" true ") << 0;
        QTest::newRow("object without jobId") << QByteArray(R"({"videoId":"vd_1"})") << 0;
        QTest::newRow("object with null jobId") << QByteArray(R"({"jobId":null})") << 0;
        QTest::newRow("fractional jobId") << QByteArray(R"({"jobId":12.5})") << 0;
    }
    void malformedPayloadsAreSkippedAndCounted()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, malformed);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("1"),
                  QStringLiteral("waiting"), payload);
        queue.putHashless(QStringLiteral("video-generation"), QStringLiteral("2"),
                          QStringLiteral("waiting"));
        queue.put(QStringLiteral("video-generation"), QStringLiteral("3"),
                  QStringLiteral("waiting"), payloadFor(QStringLiteral("vj_1")));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(!stats.error);
        QCOMPARE(stats.malformed, malformed); // an id without a job hash is not "malformed"
        // A bad payload is skipped, not fatal: the next job on the same page is still matched.
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.first().evidence.last().jobId, QStringLiteral("3"));
    }

    // A job the queue's event log says moved during the scan is looked up by id afterwards: it
    // may have left a state before the scan got there for one the scan had already read. A log
    // that lost entries names no one, so what is still unresolved is UNKNOWN, never ABSENT.
    void jobsThatMovedDuringTheScanAreLookedUpById_data()
    {
        QTest::addColumn<bool>("complete");
        QTest::newRow("complete log") << true;
        QTest::newRow("trimmed log") << false;
    }
    void jobsThatMovedDuringTheScanAreLookedUpById()
    {
        QFETCH(bool, complete);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        bool moved = false;
        int actives = 0;
        // After the last state of the first queue is read, the job appears in one read earlier.
        queue.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (moved || q != QLatin1String("video-generation") || state != QLatin1String("active"))
                return;
            if (++actives < 2)
                return;
            moved = true;
            queue.put(QStringLiteral("video-generation"), QStringLiteral("old-5"),
                      QStringLiteral("delayed"), payloadFor(QStringLiteral("vj_cycling")));
            // The log is followed after every page: a trimmed log shows from the move on.
            queue.movesComplete = complete;
        };
        queue.movedJobs = {QStringLiteral("old-5"), QStringLiteral("gone-1")};
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_cycling"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(moved);
        if (complete) {
            QVERIFY(!stats.error);
            QCOMPARE(verdicts.at(0).verdict, Verdict::Scheduled);
            QCOMPARE(verdicts.at(0).evidence.last().jobId, QStringLiteral("old-5"));
            QCOMPARE(verdicts.at(0).evidence.last().state, QStringLiteral("delayed"));
            QCOMPARE(verdicts.at(1).verdict, Verdict::Absent);
        } else {
            QVERIFY(stats.error);
            QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
            QCOMPARE(verdicts.at(1).verdict, Verdict::Unknown);
            QVERIFY2(verdicts.at(1).unknownReason.contains(QStringLiteral("event log")),
                     qPrintable(verdicts.at(1).unknownReason));
        }
    }

    // #19: a job whose payload cannot be parsed could be any candidate's. Every candidate the
    // scan still had to find is UNKNOWN — never ABSENT — with the unreadable job named; a
    // candidate the scan did find keeps its evidence.
    void unreadablePayloadMakesUnresolvedCandidatesUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("old-7"),
                  QStringLiteral("waiting"), QByteArray("{\"jobId\": \"vj_1\", broken"));
        queue.put(QStringLiteral("video-generation"), QStringLiteral("3"),
                  QStringLiteral("delayed"), payloadFor(QStringLiteral("vj_found")));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_found"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(!stats.error);
        QCOMPARE(stats.malformed, 1);
        QCOMPARE(stats.unreadable, QStringList{QStringLiteral("video-generation/wait/old-7")});
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        QVERIFY2(verdicts.at(0).unknownReason.contains(QStringLiteral("scan met 1 unreadable job")),
                 qPrintable(verdicts.at(0).unknownReason));
        QVERIFY(
            verdicts.at(0).unknownReason.contains(QStringLiteral("video-generation/wait/old-7")));
        QCOMPARE(verdicts.at(1).verdict, Verdict::Scheduled);
    }

    // #28 case 9: ordinary jobs whose data is valid JSON naming no row leave an orphan ABSENT
    // (they used to make it UNKNOWN on every run); a payload that is not JSON still makes it
    // UNKNOWN.
    void validJsonNamingNoRowLeavesTheOrphanAbsent()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        const QList<QByteArray> payloads{"\"text\"", "[1,2]", "null", "7", R"({"other":1})"};
        for (qsizetype i = 0; i < payloads.size(); ++i)
            queue.put(QStringLiteral("video-generation"), QStringLiteral("plain-%1").arg(i),
                      QStringLiteral("waiting"), payloads.at(i));
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QCOMPARE(stats.malformed, 0);
        QCOMPARE(verdicts.first().verdict, Verdict::Absent);

        queue.put(QStringLiteral("video-generation"), QStringLiteral("broken"),
                  QStringLiteral("waiting"), QByteArray("{\"jobId\":"));
        verdicts = {provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QCOMPARE(stats.malformed, 1);
        QCOMPARE(verdicts.first().verdict, Verdict::Unknown);
    }

    // #28 case 8: a job that moved during the scan is looked up with its whole payload: a
    // payload over the 16 KiB excerpt used to be cut, fail to parse, and make the domain UNKNOWN.
    void movedJobWithALargePayloadIsMatched()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        const QByteArray big = QStringLiteral("{\"jobId\":\"vj_big\",\"blob\":\"%1\"}")
                                   .arg(QString(40000, QLatin1Char('x')))
                                   .toUtf8();
        int actives = 0;
        queue.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (q == QLatin1String("video-generation") && state == QLatin1String("active") &&
                ++actives == 2)
                queue.put(q, QStringLiteral("old-big"), QStringLiteral("delayed"), big);
        };
        queue.movedJobs = {QStringLiteral("old-big")};
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_big"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY2(!stats.error, qPrintable(stats.error.value_or(QString())));
        QCOMPARE(stats.malformed, 0);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.at(0).evidence.last().jobId, QStringLiteral("old-big"));
        QCOMPARE(verdicts.at(1).verdict, Verdict::Absent);
    }

    // #28 case 4: a job that moved during the scan into a list longer than the probe walks is
    // answered "list-unresolved"; it is looked for in the lists, never dropped as gone.
    void movedJobDeepInALongListIsLookedForInTheList()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.listsTooLong = true;
        int actives = 0;
        queue.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (q == QLatin1String("video-generation") && state == QLatin1String("active") &&
                ++actives == 2)
                queue.put(q, QStringLiteral("old-9"), QStringLiteral("waiting"),
                          payloadFor(QStringLiteral("vj_retried")));
        };
        queue.movedJobs = {QStringLiteral("old-9")};
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_retried"), Verdict::Absent),
                                         provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY2(!stats.error, qPrintable(stats.error.value_or(QString())));
        QCOMPARE(verdicts.at(0).verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.at(0).evidence.last().state, QStringLiteral("waiting"));
        QVERIFY(log.contains(QStringLiteral("queue:list:video-generation:wait")));
        QCOMPARE(verdicts.at(1).verdict, Verdict::Absent);

        // The lists cannot be read: the moved job could be anyone's, so nothing is ABSENT.
        CallLog log2;
        FakeQueue failing(&log2);
        failing.listsTooLong = true;
        failing.listError = RedisError{RedisError::Kind::Moving, QStringLiteral("too fast")};
        actives = 0;
        failing.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (q == QLatin1String("video-generation") && state == QLatin1String("active") &&
                ++actives == 2)
                failing.put(q, QStringLiteral("old-9"), QStringLiteral("waiting"),
                            payloadFor(QStringLiteral("vj_retried")));
        };
        failing.movedJobs = {QStringLiteral("old-9")};
        verdicts = {provisional(QStringLiteral("vj_retried"), Verdict::Absent),
                    provisional(QStringLiteral("vj_orphan"), Verdict::Absent)};
        scanDomain(config.domains.at(0), verdicts, failing, 200);
        QCOMPARE(verdicts.at(0).verdict, Verdict::Unknown);
        QCOMPARE(verdicts.at(1).verdict, Verdict::Unknown);
        QVERIFY2(verdicts.at(1).unknownReason.contains(QStringLiteral("too fast")),
                 qPrintable(verdicts.at(1).unknownReason));
    }

    // #28 case 6: a moved job answered with a state this code does not know settles nothing:
    // the unresolved candidates are UNKNOWN, not ABSENT.
    void movedJobInAnUnknownStateMakesUnresolvedUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("old-3"),
                  QStringLiteral("archived"), payloadFor(QStringLiteral("vj_1")));
        queue.movedJobs = {QStringLiteral("old-3")};
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(stats.error);
        QCOMPARE(verdicts.first().verdict, Verdict::Unknown);
        QVERIFY2(verdicts.first().unknownReason.contains(QStringLiteral("archived")),
                 qPrintable(verdicts.first().unknownReason));
    }

    // #28 case 1: a page that continued from an anchor the event log says moved after it was
    // read proves nothing about what lay between: the state is read again from its start.
    void aPageContinuingFromAMovedAnchorReadsTheStateAgain()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        for (int i = 0; i < 5; ++i)
            queue.put(QStringLiteral("video-export"), QStringLiteral("w%1").arg(i),
                      QStringLiteral("waiting"), payloadFor(QStringLiteral("x%1").arg(i)));
        int waitPages = 0;
        queue.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (q != QLatin1String("video-export") || state != QLatin1String("wait"))
                return;
            // After the first page, the job it ended at moves (and is named by the log once).
            ++waitPages;
            queue.movedJobs = waitPages == 1 ? QStringList{QStringLiteral("w1")} : QStringList{};
        };
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("nobody"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 2);
        QVERIFY2(!stats.error, qPrintable(stats.error.value_or(QString())));
        QCOMPARE(stats.rereads, 1);
        const QStringList wait = scanEntries(log).filter(QStringLiteral("video-export:wait:"));
        // 0, 2 (continued from the moved w1: read again), then 0, 2, 4, and the continuation.
        QCOMPARE(wait.mid(0, 5), (QStringList{QStringLiteral("video-export:wait:0"),
                                              QStringLiteral("video-export:wait:2"),
                                              QStringLiteral("video-export:wait:0"),
                                              QStringLiteral("video-export:wait:2"),
                                              QStringLiteral("video-export:wait:4")}));
        QCOMPARE(verdicts.first().verdict, Verdict::Absent);
    }

    // #28 case 2: a pause or resume during the read makes the queue read again; one that keeps
    // happening makes the unresolved UNKNOWN after three reads, never ABSENT.
    void aPauseDuringEveryReadMakesUnresolvedUnknown()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.pausedOrResumed = true;
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("nobody"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(stats.error);
        QCOMPARE(stats.queueRereads, 3);
        QCOMPARE(verdicts.first().verdict, Verdict::Unknown);
        QVERIFY2(verdicts.first().unknownReason.contains(QStringLiteral("paused or resumed")),
                 qPrintable(verdicts.first().unknownReason));

        // Once: the queue is read again and the scan concludes.
        CallLog log2;
        FakeQueue once(&log2);
        once.pausedOrResumed = true;
        int marks = 0;
        once.afterScanPage = [&](const QString &, const QString &state, qint64) {
            if (state == QLatin1String("active") && ++marks == 2)
                once.pausedOrResumed = false;
        };
        verdicts = {provisional(QStringLiteral("nobody"), Verdict::Absent)};
        const ScanStats again = scanDomain(config.domains.at(0), verdicts, once, 200);
        QVERIFY2(!again.error, qPrintable(again.error.value_or(QString())));
        QCOMPARE(again.queueRereads, 1);
        QCOMPARE(verdicts.first().verdict, Verdict::Absent);
    }

    // #28 case 3: the jobs that entered `prioritized` while it was read (changePriority writes
    // no event) are read once more after its pages, from a mark taken before them.
    void jobsPrioritizedDuringTheReadAreReadAgain()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.newlyPrioritized = {QStringLiteral("old-4")};
        // The job enters `prioritized` behind the reader, after its page: only the read since
        // the mark can see it.
        queue.afterScanPage = [&](const QString &q, const QString &state, qint64) {
            if (q == QLatin1String("video-generation") && state == QLatin1String("prioritized"))
                queue.put(q, QStringLiteral("old-4"), QStringLiteral("prioritized"),
                          payloadFor(QStringLiteral("vj_1")));
        };
        QList<CandidateVerdict> verdicts{provisional(QStringLiteral("vj_1"), Verdict::Absent)};
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY2(!stats.error, qPrintable(stats.error.value_or(QString())));
        QCOMPARE(stats.reprioritized, 1);
        QCOMPARE(verdicts.first().verdict, Verdict::Scheduled);
        QCOMPARE(verdicts.first().evidence.last().state, QStringLiteral("prioritized"));
        QVERIFY(log.contains(QStringLiteral("queue:prioritized:video-generation:mark")));
        QVERIFY(log.contains(QStringLiteral("queue:prioritized:video-generation:1")));
    }

    // A finished job retained under the current id is not runnable: the lookup leaves the
    // candidate unresolved, the scan runs, and with nothing runnable it is ABSENT.
    void retainedFinishedJobIsAbsentAfterTheScan_data()
    {
        QTest::addColumn<QString>("state");
        QTest::newRow("completed") << QStringLiteral("completed");
        QTest::newRow("failed") << QStringLiteral("failed");
    }
    void retainedFinishedJobIsAbsentAfterTheScan()
    {
        QFETCH(QString, state);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeQueue queue(&log);
        queue.put(QStringLiteral("video-generation"), QStringLiteral("video-generate-vj_1"), state,
                  payloadFor(QStringLiteral("vj_1")));
        auto verdicts =
            lookUpDirectly(config.domains.at(0), {candidate(QStringLiteral("vj_1"))}, queue);
        const ScanStats stats = scanDomain(config.domains.at(0), verdicts, queue, 200);
        QVERIFY(stats.ran);
        const CandidateVerdict &v = verdicts.first();
        QCOMPARE(v.verdict, Verdict::Absent);
        QVERIFY(v.scanned);
        QCOMPARE(v.evidence.first().state, state);
        QVERIFY2(
            v.summary().contains(QStringLiteral("only %1 retained in video-generation").arg(state)),
            qPrintable(v.summary()));
    }
};

QTEST_GUILESS_MAIN(TestDomainScan)
#include "test_domainscan.moc"
