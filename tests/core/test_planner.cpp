// Stage 5, the plan: only ABSENT candidates get an action; REQUEUE only where the input can be
// rebuilt and the retry budget allows; FAIL otherwise; preconditions are what was read, verbatim.
#include "recovery/planner.h"
#include "support/fakes.h"
#include "testprint.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

CandidateVerdict verdict(const QString &id, const QString &type, Verdict v)
{
    Candidate c{QStringLiteral("video"),
                id,
                type,
                QStringLiteral("PROCESSING"),
                QStringLiteral("2026-01-01 10:00:00.123456"),
                {},
                {}};
    return CandidateVerdict{c, v, {}, {}, true};
}

} // namespace

class TestPlanner : public QObject
{
    Q_OBJECT
private slots:
    void onlyAbsentIsPlanned_data()
    {
        QTest::addColumn<Verdict>("given");
        QTest::addColumn<int>("actions");
        QTest::newRow("SCHEDULED") << Verdict::Scheduled << 0;
        QTest::newRow("UNKNOWN") << Verdict::Unknown << 0;
        QTest::newRow("ABSENT") << Verdict::Absent << 1;
    }
    void onlyAbsentIsPlanned()
    {
        QFETCH(Verdict, given);
        QFETCH(int, actions);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("GENERATE"), given)}, store, 3);
        QCOMPARE(planned.size(), actions);
    }

    void preconditionIsWhatWasRead()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("EXPORT"), Verdict::Absent)}, store,
            17);
        QCOMPARE(planned.size(), 1);
        const Action &a = planned.first();
        QCOMPARE(a.id, QStringLiteral("video/vj_1"));
        QCOMPARE(a.domain, QStringLiteral("video"));
        QCOMPARE(a.rowId, QStringLiteral("vj_1"));
        QCOMPARE(a.jobType, QStringLiteral("EXPORT"));
        QCOMPARE(a.precondition.status, QStringLiteral("PROCESSING"));
        QCOMPARE(a.precondition.updatedAtText, QStringLiteral("2026-01-01 10:00:00.123456"));
        QCOMPARE(a.precondition.generation, 17);
        QCOMPARE(a.result, ActionResult::Pending);
    }

    void requeueWhereTheInputCanBeRebuilt()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        store.restorable.insert(QStringLiteral("vj_1"),
                                QByteArray(R"({"jobId":"vj_1","tracks":[]})"));
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("COMPOSE"), Verdict::Absent)}, store,
            1);
        const Action &a = planned.first();
        QCOMPARE(a.kind, ActionKind::Requeue);
        QCOMPARE(a.queue, QStringLiteral("video-generation"));
        QCOMPARE(a.jobName, QStringLiteral("compose"));
        QCOMPARE(a.jobId, QStringLiteral("video-compose-vj_1"));
        QCOMPARE(a.payload, QByteArray(R"({"jobId":"vj_1","tracks":[]})"));
        QCOMPARE(a.result, ActionResult::Pending);
    }

    // Issue 18: a rebuilt payload that is not a JSON object is never planned as an enqueue. The
    // action is settled as an error with the reason before anything runs, so the executor (and
    // an operator's approval) leaves it alone, and the row is not failed for a broken query.
    void payloadThatIsNotAJsonObjectIsNeverEnqueued_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<QString>("problem");
        QTest::newRow("truncated") << QByteArray(R"({"jobId": "dc_corrupt", broken)")
                                   << QStringLiteral("is not valid JSON");
        QTest::newRow("empty") << QByteArray("") << QStringLiteral("is not valid JSON");
        QTest::newRow("array") << QByteArray(R"(["vj_1"])")
                               << QStringLiteral("is JSON but not an object");
    }
    void payloadThatIsNotAJsonObjectIsNeverEnqueued()
    {
        QFETCH(QByteArray, payload);
        QFETCH(QString, problem);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        store.restorable.insert(QStringLiteral("vj_1"), payload);
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("COMPOSE"), Verdict::Absent)}, store,
            1);
        QCOMPARE(planned.size(), 1);
        const Action &a = planned.first();
        QCOMPARE(a.kind, ActionKind::Requeue);
        QCOMPARE(a.result, ActionResult::Error); // settled: never executed, never approvable
        QVERIFY2(
            a.resultDetail.startsWith(QStringLiteral("not enqueued: the restore query of video "
                                                     "returned a payload for vj_1 that ") +
                                      problem),
            qPrintable(a.resultDetail));
        QVERIFY(a.payload.isEmpty());
    }

    void failWhereTheInputCannotBeRebuilt_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<bool>("restoreFindsInput");
        QTest::addColumn<QString>("reason");
        QTest::newRow("type not restorable")
            << QStringLiteral("GENERATE") << true << QStringLiteral("cannot be rebuilt");
        QTest::newRow("restore query finds nothing")
            << QStringLiteral("COMPOSE") << false << QStringLiteral("found no input");
    }
    void failWhereTheInputCannotBeRebuilt()
    {
        QFETCH(QString, type);
        QFETCH(bool, restoreFindsInput);
        QFETCH(QString, reason);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        if (restoreFindsInput)
            store.restorable.insert(QStringLiteral("vj_1"), QByteArray("{}"));
        const auto planned =
            planActions(config.domains.at(0),
                        {verdict(QStringLiteral("vj_1"), type, Verdict::Absent)}, store, 1);
        QCOMPARE(planned.size(), 1);
        QCOMPARE(planned.first().kind, ActionKind::Fail);
        QVERIFY2(planned.first().reason.contains(reason), qPrintable(planned.first().reason));
        QVERIFY(planned.first().payload.isEmpty());
    }

    // #30: a domain's orphans are planned in sets: the budget and the restore payloads of 12,500
    // orphans in three statements each (batches of 5,000), none row by row; the answers are each
    // row's own.
    void orphansArePlannedInSets()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        QList<CandidateVerdict> verdicts;
        for (int i = 0; i < 12500; ++i) {
            const QString id = QStringLiteral("vj_%1").arg(i);
            verdicts << verdict(id, QStringLiteral("COMPOSE"), Verdict::Absent);
            if (i % 2 == 0)
                store.restorable.insert(id, QStringLiteral(R"({"jobId":"%1"})").arg(id).toUtf8());
        }
        store.requeues.insert(QStringLiteral("vj_4"), 99); // over the budget: a FAIL
        const auto planned = planActions(config.domains.at(0), verdicts, store, 1);
        QCOMPARE(planned.size(), 12500);
        QCOMPARE(store.budgetStatements, 3);
        QCOMPARE(store.restoreStatements, 3);
        QCOMPARE(store.rowByRowReads, 0);
        QCOMPARE(planned.at(0).kind, ActionKind::Requeue);
        QCOMPARE(planned.at(0).payload, QByteArray(R"({"jobId":"vj_0"})"));
        QCOMPARE(planned.at(1).kind, ActionKind::Fail); // nothing to rebuild from
        QCOMPARE(planned.at(4).kind, ActionKind::Fail); // the budget is spent
        QCOMPARE(planned.at(2498).payload, QByteArray(R"({"jobId":"vj_2498"})"));
        QVERIFY(planned.at(0).jobOptions.isEmpty()); // the domain sets none

        // #31 item 10: a domain's job options go with each requeue it plans (and show in the
        // report and the console's detail).
        ReclaimConfig withOptions = fakeConfig();
        withOptions.domains[0].jobOptions = QByteArrayLiteral(R"({"attempts":5})");
        const auto again = planActions(withOptions.domains.at(0), verdicts.mid(0, 2), store, 1);
        QCOMPARE(again.at(0).jobOptions, QByteArrayLiteral(R"({"attempts":5})"));
        QVERIFY(again.at(1).jobOptions.isEmpty()); // a FAIL writes no job
    }

    // One row's restore failed in a set (the store asked row by row after the set statement
    // failed): only that row is not planned; the others of its batch are.
    void oneRowsRestoreErrorSkipsOnlyThatRow()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        QList<CandidateVerdict> verdicts;
        for (int i = 0; i < 3; ++i) {
            const QString id = QStringLiteral("vj_%1").arg(i);
            verdicts << verdict(id, QStringLiteral("COMPOSE"), Verdict::Absent);
            store.restorable.insert(id, QByteArray("{}"));
        }
        store.restoreFailsFor.insert(QStringLiteral("vj_1"));
        const auto planned = planActions(config.domains.at(0), verdicts, store, 1);
        QCOMPARE(planned.size(), 3);
        QCOMPARE(planned.at(0).result, ActionResult::Pending);
        QCOMPARE(planned.at(1).result, ActionResult::Error);
        QVERIFY2(planned.at(1).resultDetail.contains(QStringLiteral("vj_1")),
                 qPrintable(planned.at(1).resultDetail));
        QCOMPARE(planned.at(2).result, ActionResult::Pending);
        QCOMPARE(planned.at(2).kind, ActionKind::Requeue);
    }

    void domainWithoutRestoreAlwaysFails()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        CandidateVerdict v = verdict(QStringLiteral("ij_1"), QString(), Verdict::Absent);
        v.candidate.domain = QStringLiteral("image");
        const auto planned = planActions(config.domains.at(1), {v}, store, 1);
        QCOMPARE(planned.first().kind, ActionKind::Fail);
        QCOMPARE(planned.first().id, QStringLiteral("image/ij_1"));
    }

    void retryBudget_data()
    {
        QTest::addColumn<int>("used");
        QTest::addColumn<ActionKind>("kind");
        QTest::newRow("never requeued") << 0 << ActionKind::Requeue;
        QTest::newRow("one left") << 2 << ActionKind::Requeue;
        QTest::newRow("exhausted") << 3 << ActionKind::Fail;
        QTest::newRow("over") << 7 << ActionKind::Fail;
    }
    void retryBudget()
    {
        QFETCH(int, used);
        QFETCH(ActionKind, kind);
        const ReclaimConfig config = fakeConfig();
        QCOMPARE(config.domains.at(0).maxRequeues, 3);
        CallLog log;
        FakeJobStore store(&log);
        store.restorable.insert(QStringLiteral("vj_1"), QByteArray("{}"));
        store.requeues.insert(QStringLiteral("vj_1"), used);
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("COMPOSE"), Verdict::Absent)}, store,
            1);
        QCOMPARE(planned.first().kind, kind);
        if (kind == ActionKind::Fail)
            QVERIFY2(planned.first().reason.contains(QStringLiteral("requeued %1 times").arg(used)),
                     qPrintable(planned.first().reason));
    }

    // Not knowing the budget or the input is not a licence to guess: the action is marked as an
    // error up front, so the executor never runs it.
    void storeErrorsWhilePlanningWriteNothing_data()
    {
        QTest::addColumn<bool>("budgetFails");
        QTest::newRow("retry budget unreadable") << true;
        QTest::newRow("restore query failed") << false;
    }
    void storeErrorsWhilePlanningWriteNothing()
    {
        QFETCH(bool, budgetFails);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        store.restorable.insert(QStringLiteral("vj_1"), QByteArray("{}"));
        if (budgetFails)
            store.budgetError = StoreError{QStringLiteral("budget: connection lost")};
        else
            store.restoreError =
                StoreError{QStringLiteral("restore: relation \"Track\" does not exist")};
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("COMPOSE"), Verdict::Absent)}, store,
            1);
        QCOMPARE(planned.size(), 1);
        QCOMPARE(planned.first().result, ActionResult::Error);
        QVERIFY(planned.first().resultDetail.contains(budgetFails ? QStringLiteral("budget")
                                                                  : QStringLiteral("restore")));
    }

    // An operator's rejection stands exactly while the row is as it was when rejected: a later
    // updatedAt or another status (the row moved on), another row, another domain or an undone
    // rejection leave the action pending again.
    void aRejectionStandsWhileTheRowIsUnchanged_data()
    {
        QTest::addColumn<QString>("domain");
        QTest::addColumn<QString>("rowId");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("updatedAt");
        QTest::addColumn<bool>("rejected");
        const QString seen = QStringLiteral("2026-01-01 10:00:00.123456");
        QTest::newRow("unchanged") << "video"
                                   << "vj_1"
                                   << "PROCESSING" << seen << true;
        QTest::newRow("updatedAt moved by a microsecond") << "video"
                                                          << "vj_1"
                                                          << "PROCESSING"
                                                          << "2026-01-01 10:00:00.123457" << false;
        QTest::newRow("status moved") << "video"
                                      << "vj_1"
                                      << "QUEUED" << seen << false;
        QTest::newRow("another row") << "video"
                                     << "vj_2"
                                     << "PROCESSING" << seen << false;
        QTest::newRow("another domain") << "image"
                                        << "vj_1"
                                        << "PROCESSING" << seen << false;
    }
    void aRejectionStandsWhileTheRowIsUnchanged()
    {
        QFETCH(QString, domain);
        QFETCH(QString, rowId);
        QFETCH(QString, status);
        QFETCH(QString, updatedAt);
        QFETCH(bool, rejected);
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        const QDateTime at =
            QDateTime::fromString(QStringLiteral("2026-01-01T10:05:00Z"), Qt::ISODate);
        store.rejections << Rejection{
            domain, rowId, status, updatedAt, QStringLiteral("alice@ops1"), at};
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("EXPORT"), Verdict::Absent)}, store, 4);
        QCOMPARE(planned.size(), 1);
        const Action &a = planned.first();
        QCOMPARE(a.result, rejected ? ActionResult::Rejected : ActionResult::Pending);
        QCOMPARE(actionKindName(a.kind), QStringLiteral("FAIL")); // what was rejected stays named
        if (rejected) {
            QCOMPARE(a.rejectedBy, QStringLiteral("alice@ops1"));
            QCOMPARE(a.executedAt, at);
            QVERIFY2(a.resultDetail.contains(QStringLiteral("rejected by alice@ops1")),
                     qPrintable(a.resultDetail));
        } else {
            QVERIFY(a.rejectedBy.isEmpty());
        }
        QCOMPARE(log.count(QStringLiteral("store:rejections:video")), 1);
    }

    void rejectionsAreReadOncePerDomainAndOnlyWhenSomethingIsPlanned()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        planActions(config.domains.at(0),
                    {verdict(QStringLiteral("vj_1"), QStringLiteral("EXPORT"), Verdict::Scheduled),
                     verdict(QStringLiteral("vj_2"), QStringLiteral("EXPORT"), Verdict::Unknown)},
                    store, 1);
        QCOMPARE(log.count(QStringLiteral("store:rejections:video")), 0);
        planActions(config.domains.at(0),
                    {verdict(QStringLiteral("vj_1"), QStringLiteral("EXPORT"), Verdict::Absent),
                     verdict(QStringLiteral("vj_2"), QStringLiteral("EXPORT"), Verdict::Absent)},
                    store, 1);
        QCOMPARE(log.count(QStringLiteral("store:rejections:video")), 1);
    }

    // Whether an operator said no cannot be told: nothing may run.
    void unreadableRejectionsWriteNothing()
    {
        const ReclaimConfig config = fakeConfig();
        CallLog log;
        FakeJobStore store(&log);
        store.rejectionsError = StoreError{QStringLiteral("rejections: connection lost")};
        const auto planned = planActions(
            config.domains.at(0),
            {verdict(QStringLiteral("vj_1"), QStringLiteral("EXPORT"), Verdict::Absent)}, store, 1);
        QCOMPARE(planned.size(), 1);
        QCOMPARE(planned.first().result, ActionResult::Error);
        QVERIFY(planned.first().resultDetail.contains(QStringLiteral("rejections")));
    }
};

QTEST_GUILESS_MAIN(TestPlanner)
#include "test_planner.moc"
