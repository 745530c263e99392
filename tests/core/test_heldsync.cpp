// What a run changes in the held actions it finds (recovery/heldsync.h): kept once, executed,
// superseded with why, rejected, and never settled on "could not look".
#include "recovery/heldsync.h"

#include <QTest>

using namespace reclaim;

namespace {

const QString kSeen = QStringLiteral("2026-01-01 10:00:00.123");

Candidate candidate(const QString &id, const QString &updatedAt = kSeen)
{
    Candidate c;
    c.domain = QStringLiteral("image");
    c.id = id;
    c.status = QStringLiteral("QUEUED");
    c.updatedAtText = updatedAt;
    return c;
}

CandidateVerdict verdict(const QString &id, Verdict v, const QString &updatedAt = kSeen)
{
    CandidateVerdict cv;
    cv.candidate = candidate(id, updatedAt);
    cv.verdict = v;
    return cv;
}

Action action(const QString &id, ActionResult result, const QString &heldReason = {},
              const QString &updatedAt = kSeen)
{
    Action a;
    a.id = QStringLiteral("image/") + id;
    a.domain = QStringLiteral("image");
    a.rowId = id;
    a.kind = ActionKind::Fail;
    a.precondition = Precondition{QStringLiteral("QUEUED"), updatedAt, 7};
    a.result = result;
    a.heldReason = heldReason;
    return a;
}

HeldAction held(qint64 id, const QString &rowId)
{
    HeldAction h;
    h.id = id;
    h.action = action(rowId, ActionResult::Pending, QStringLiteral("held before"));
    return h;
}

const HeldTransition *transitionOf(const HeldSyncPlan &plan, qint64 id)
{
    for (const HeldTransition &t : plan.settled)
        if (t.id == id)
            return &t;
    return nullptr;
}

} // namespace

class TestHeldSync : public QObject
{
    Q_OBJECT
private slots:
    // Held again the same way: kept (its reason refreshed), no second entry.
    void heldAgainTheSameWayIsKeptOnce()
    {
        DomainReport d;
        d.name = QStringLiteral("image");
        d.candidates = {verdict(QStringLiteral("ij_1"), Verdict::Absent)};
        d.heldReason = QStringLiteral("image: 12 actions held");
        d.heldLimit = QStringLiteral("max-actions");
        const QList<Action> actions{
            action(QStringLiteral("ij_1"), ActionResult::Pending, d.heldReason)};
        const HeldSyncPlan plan =
            planHeldSync(d, actions, {held(5, QStringLiteral("ij_1"))}, QStringLiteral("r2"));
        QCOMPARE(plan.kept.size(), 1);
        QCOMPARE(plan.kept.first().id, 5);
        QCOMPARE(plan.kept.first().heldReason, d.heldReason);
        QCOMPARE(plan.kept.first().heldLimit, QStringLiteral("max-actions"));
        QVERIFY(plan.toHold.isEmpty());
        QVERIFY(plan.settled.isEmpty());
    }

    void newHeldActionsAreAddedWithTheirLimit()
    {
        DomainReport d;
        d.name = QStringLiteral("image");
        d.candidates = {verdict(QStringLiteral("ij_1"), Verdict::Absent),
                        verdict(QStringLiteral("ij_2"), Verdict::Absent)};
        const QList<Action> actions{
            action(QStringLiteral("ij_1"), ActionResult::Pending, QStringLiteral("policy says")),
            action(QStringLiteral("ij_2"), ActionResult::Pending)}; // runs on its own: not held
        const HeldSyncPlan plan = planHeldSync(d, actions, {}, QStringLiteral("r1"));
        QCOMPARE(plan.toHold.size(), 1);
        QCOMPARE(plan.toHold.first().action->rowId, QStringLiteral("ij_1"));
        QCOMPARE(plan.toHold.first().heldLimit, QStringLiteral("policy"));
    }

    void settledByWhatTheRunSaw_data()
    {
        QTest::addColumn<QList<CandidateVerdict>>("candidates");
        QTest::addColumn<QList<Action>>("actions");
        QTest::addColumn<int>("to"); // HeldState, or -1: left as it is
        QTest::addColumn<QString>("detail");
        const QString row = QStringLiteral("ij_1");
        QTest::newRow("no longer a candidate")
            << QList<CandidateVerdict>{} << QList<Action>{} << int(HeldState::Superseded)
            << QStringLiteral("no longer a candidate");
        QTest::newRow("row moved on")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent, QStringLiteral("later"))}
            << QList<Action>{} << int(HeldState::Superseded) << QStringLiteral("moved on");
        QTest::newRow("job runnable again")
            << QList<CandidateVerdict>{verdict(row, Verdict::Scheduled)} << QList<Action>{}
            << int(HeldState::Superseded) << QStringLiteral("runnable again");
        QTest::newRow("could not look: left as it is")
            << QList<CandidateVerdict>{verdict(row, Verdict::Unknown)} << QList<Action>{} << -1
            << QString();
        QTest::newRow("executed on its own")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
            << QList<Action>{action(row, ActionResult::Applied)} << int(HeldState::Executed)
            << QStringLiteral("executed it on its own");
        QTest::newRow("stale write")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
            << QList<Action>{action(row, ActionResult::Stale)} << int(HeldState::Superseded)
            << QStringLiteral("moved on (0 rows");
        QTest::newRow("enqueue failed: left as it is")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
            << QList<Action>{action(row, ActionResult::EnqueueFailed)} << -1 << QString();
        QTest::newRow("fenced: left as it is")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
            << QList<Action>{action(row, ActionResult::Fenced)} << -1 << QString();
        QTest::newRow("rejected") << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
                                  << QList<Action>{action(row, ActionResult::Rejected)}
                                  << int(HeldState::Rejected) << QStringLiteral("rejected by");
        Action observed = action(row, ActionResult::Pending);
        observed.policy = Policy::Observe;
        QTest::newRow("policy now observe")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)} << QList<Action>{observed}
            << int(HeldState::Superseded) << QStringLiteral("now observe");
        QTest::newRow("a console planned it, did not run it: left as it is")
            << QList<CandidateVerdict>{verdict(row, Verdict::Absent)}
            << QList<Action>{action(row, ActionResult::Pending)} << -1 << QString();
    }
    void settledByWhatTheRunSaw()
    {
        QFETCH(QList<CandidateVerdict>, candidates);
        QFETCH(QList<Action>, actions);
        QFETCH(int, to);
        QFETCH(QString, detail);
        DomainReport d;
        d.name = QStringLiteral("image");
        d.candidates = candidates;
        const HeldSyncPlan plan =
            planHeldSync(d, actions, {held(9, QStringLiteral("ij_1"))}, QStringLiteral("r3"));
        QVERIFY(plan.toHold.isEmpty());
        QVERIFY(plan.kept.isEmpty());
        const HeldTransition *t = transitionOf(plan, 9);
        if (to < 0) {
            QVERIFY2(!t, t ? qPrintable(t->detail) : "");
            return;
        }
        QVERIFY(t);
        QCOMPARE(int(t->to), to);
        QVERIFY2(t->detail.contains(detail), qPrintable(t->detail));
    }

    // A row whose job is healthy but beyond run.scheduledListed is not in the list: it is settled
    // as runnable again, never as "no longer a candidate", and a row that is neither listed nor
    // counted is still "no longer a candidate".
    void aHealthyRowCountedButNotListedSettlesItsHeldAction()
    {
        DomainReport d;
        d.name = QStringLiteral("image");
        d.unlistedScheduled = {QStringLiteral("ij_1")};
        const HeldSyncPlan plan =
            planHeldSync(d, {}, {held(9, QStringLiteral("ij_1")), held(10, QStringLiteral("ij_2"))},
                         QStringLiteral("r5"));
        const HeldTransition *t = transitionOf(plan, 9);
        QVERIFY(t);
        QCOMPARE(t->to, HeldState::Superseded);
        QVERIFY2(t->detail.contains(QStringLiteral("runnable again")), qPrintable(t->detail));
        const HeldTransition *gone = transitionOf(plan, 10);
        QVERIFY(gone);
        QVERIFY2(gone->detail.contains(QStringLiteral("no longer a candidate")),
                 qPrintable(gone->detail));
    }

    // Planned again, but on a newer version of the row: the old entry goes, a new one comes.
    void heldOnAChangedRowReplacesTheOldEntry()
    {
        DomainReport d;
        d.name = QStringLiteral("image");
        d.candidates = {verdict(QStringLiteral("ij_1"), Verdict::Absent, QStringLiteral("later"))};
        const QList<Action> actions{action(QStringLiteral("ij_1"), ActionResult::Pending,
                                           QStringLiteral("held"), QStringLiteral("later"))};
        const HeldSyncPlan plan =
            planHeldSync(d, actions, {held(4, QStringLiteral("ij_1"))}, QStringLiteral("r4"));
        const HeldTransition *t = transitionOf(plan, 4);
        QVERIFY(t && t->to == HeldState::Superseded);
        QCOMPARE(plan.toHold.size(), 1);
        QCOMPARE(plan.toHold.first().action->precondition.updatedAtText, QStringLiteral("later"));
    }
};

QTEST_GUILESS_MAIN(TestHeldSync)
#include "test_heldsync.moc"
