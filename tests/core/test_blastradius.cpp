// Per-kind policy and the blast-radius guard (#29) over whole runs on the fakes: which actions
// run on their own, which wait for an operator and why, and that a held domain writes nothing.
#include "recovery/recoveryrun.h"
#include "support/fakes.h"
#include "support/fakeworld.h"
#include "testprint.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// `count` QUEUED rows of the image domain (no restore rule: each ABSENT one is a FAIL), and
// `waiting` more whose jobs wait in image-render (SCHEDULED).
void imageRows(World &w, int absent, int waiting = 0)
{
    for (int i = 0; i < absent + waiting; ++i) {
        const QString id = QStringLiteral("ij_%1").arg(i);
        w.row(QStringLiteral("image"), id, {}, QStringLiteral("QUEUED"));
        if (i >= absent)
            w.queue.put(QStringLiteral("image-render"), QStringLiteral("image-") + id,
                        QStringLiteral("waiting"),
                        QByteArray(R"({"jobId":")") + id.toUtf8() + "\"}");
    }
}

const DomainReport &domainReport(const RunReport &r, const QString &name)
{
    for (const DomainReport &d : r.domains)
        if (d.name == name)
            return d;
    qFatal("no such domain");
}

int countResult(const RunReport &r, const QString &domain, ActionResult result)
{
    int n = 0;
    for (const Action &a : r.actions)
        n += a.domain == domain && a.result == result ? 1 : 0;
    return n;
}

} // namespace

class TestBlastRadius : public QObject
{
    Q_OBJECT
private slots:
    // fail: approve, requeue: auto — the requeue runs, the fail waits with its policy named.
    void approvePolicyHoldsItsKindOnly()
    {
        World w;
        w.config.domains[0].failPolicy = Policy::Approve;
        w.row(QStringLiteral("video"), QStringLiteral("vj_c"), QStringLiteral("COMPOSE"),
              QStringLiteral("PROCESSING"));
        w.row(QStringLiteral("video"), QStringLiteral("vj_e"), QStringLiteral("EXPORT"),
              QStringLiteral("PROCESSING"));
        w.store.restorable.insert(QStringLiteral("vj_c"), QByteArray(R"({"jobId":"vj_c"})"));
        const RunReport r = w.run();
        const Action *requeue = findAction(r, QStringLiteral("video/vj_c"));
        const Action *fail = findAction(r, QStringLiteral("video/vj_e"));
        QVERIFY(requeue && fail);
        QCOMPARE(requeue->kind, ActionKind::Requeue);
        QCOMPARE(requeue->result, ActionResult::Applied);
        QCOMPARE(fail->kind, ActionKind::Fail);
        QCOMPARE(fail->result, ActionResult::Pending);
        QCOMPARE(fail->policy, Policy::Approve);
        QVERIFY(fail->isHeld());
        QVERIFY2(fail->heldReason.contains(QStringLiteral("policy fail: approve")),
                 qPrintable(fail->heldReason));
        QVERIFY(!w.logged(QStringLiteral("store:apply:vj_e")));
        QCOMPARE(w.store.rows.value(QStringLiteral("vj_e")).status, QStringLiteral("PROCESSING"));
        // Held by its policy, not by the guard: the domain itself is not held.
        QVERIFY(domainReport(r, QStringLiteral("video")).heldReason.isEmpty());
        const QJsonArray actions = r.toJson().value(QStringLiteral("actions")).toArray();
        bool sawApprove = false;
        for (const QJsonValue &a : actions)
            sawApprove |=
                a.toObject().value(QStringLiteral("policy")).toString() == QLatin1String("approve");
        QVERIFY(sawApprove);
    }

    // observe: planned and reported, never executed, never held, and not counted by the guard.
    void observedActionsAreNeitherRunNorHeldNorCounted()
    {
        World w;
        w.config.domains[1].failPolicy = Policy::Observe;
        w.config.run.guard.maxActions = 2;
        imageRows(w, 5);
        const RunReport r = w.run();
        QCOMPARE(countResult(r, QStringLiteral("image"), ActionResult::Pending), 5);
        for (const Action &a : r.actions) {
            QCOMPARE(a.policy, Policy::Observe);
            QVERIFY(!a.isHeld());
        }
        QVERIFY(domainReport(r, QStringLiteral("image")).heldReason.isEmpty());
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QVERIFY(!w.logged(QStringLiteral("queue:trace"))); // nothing to guard
    }

    void maxActionsHoldsTheDomain_data()
    {
        QTest::addColumn<int>("absent");
        QTest::addColumn<bool>("held");
        QTest::newRow("at the limit") << 3 << false;
        QTest::newRow("one above") << 4 << true;
    }
    void maxActionsHoldsTheDomain()
    {
        QFETCH(int, absent);
        QFETCH(bool, held);
        World w;
        w.config.run.guard.maxActions = 3;
        w.config.run.guard.minCandidates = 1000; // the share is not what this case tests
        imageRows(w, absent);
        const RunReport r = w.run();
        const DomainReport &image = domainReport(r, QStringLiteral("image"));
        if (!held) {
            QVERIFY(image.heldReason.isEmpty());
            QCOMPARE(countResult(r, QStringLiteral("image"), ActionResult::Applied), absent);
            return;
        }
        QCOMPARE(image.heldLimit, QStringLiteral("max-actions"));
        QVERIFY2(image.heldReason.contains(QStringLiteral("run.guard.maxActions (3)")) &&
                     image.heldReason.contains(QStringLiteral("4 actions held")),
                 qPrintable(image.heldReason));
        QCOMPARE(countResult(r, QStringLiteral("image"), ActionResult::Pending), 4);
        for (const Action &a : r.actions)
            QVERIFY(a.isHeld());
        QVERIFY(!w.logged(QStringLiteral("store:apply")));
        QVERIFY(w.store.intents.isEmpty());
    }

    void absentShareHoldsTheDomain_data()
    {
        QTest::addColumn<int>("absent");
        QTest::addColumn<int>("waiting");
        QTest::addColumn<bool>("held");
        // run.guard: maxAbsentShare 0.5 from minCandidates 4.
        QTest::newRow("quiet day: few candidates, all absent") << 3 << 0 << false;
        QTest::newRow("half absent") << 2 << 2 << false;
        QTest::newRow("most absent") << 3 << 1 << true;
        QTest::newRow("all of a backlog absent") << 6 << 0 << true;
    }
    void absentShareHoldsTheDomain()
    {
        QFETCH(int, absent);
        QFETCH(int, waiting);
        QFETCH(bool, held);
        World w;
        w.config.run.guard.maxAbsentShare = 0.5;
        w.config.run.guard.minCandidates = 4;
        imageRows(w, absent, waiting);
        const RunReport r = w.run();
        const DomainReport &image = domainReport(r, QStringLiteral("image"));
        QCOMPARE(image.count(Verdict::Absent), absent);
        QCOMPARE(!image.heldReason.isEmpty(), held);
        QCOMPARE(countResult(r, QStringLiteral("image"), ActionResult::Applied), held ? 0 : absent);
        if (held) {
            QCOMPARE(image.heldLimit, QStringLiteral("absent-share"));
            QVERIFY2(image.heldReason.contains(QStringLiteral("run.guard.maxAbsentShare (50%)")),
                     qPrintable(image.heldReason));
            QVERIFY(!w.logged(QStringLiteral("store:apply")));
        }
    }

    // Healthy candidates counted but not listed (run.scheduledListed) still count in the share:
    // 3 absent of 6 is half, not 3 of the 4 listed.
    void theShareCountsTheCandidatesNotListed()
    {
        World w;
        w.config.run.guard.maxAbsentShare = 0.5;
        w.config.run.guard.minCandidates = 4;
        w.config.run.scheduledListed = 1;
        imageRows(w, 3, 3);
        const RunReport r = w.run();
        const DomainReport &image = domainReport(r, QStringLiteral("image"));
        QCOMPARE(image.candidates.size(), 4);
        QCOMPARE(image.unlistedScheduled.size(), 2);
        QCOMPARE(image.candidateCount(), 6);
        QVERIFY2(image.heldReason.isEmpty(), qPrintable(image.heldReason));
        QCOMPARE(countResult(r, QStringLiteral("image"), ActionResult::Applied), 3);
    }

    // A queue without a trace is named before any limit: it is what an operator must read first.
    void noTraceIsTheReasonGivenFirst()
    {
        World w;
        w.config.run.guard.maxActions = 1;
        w.queue.untracedQueues = {QStringLiteral("image-render")};
        imageRows(w, 2);
        const RunReport r = w.run();
        QCOMPARE(domainReport(r, QStringLiteral("image")).heldLimit, QStringLiteral("no-trace"));
        QVERIFY(r.toJson()
                    .value(QStringLiteral("domains"))
                    .toArray()
                    .at(1)
                    .toObject()
                    .value(QStringLiteral("heldLimit"))
                    .toString() == QLatin1String("no-trace"));
    }

    // A guard trip holds an approve action with the guard's reason, the domain's worst news.
    void guardReasonReplacesThePolicyReason()
    {
        World w;
        w.config.domains[1].failPolicy = Policy::Approve;
        w.config.run.guard.maxActions = 1;
        imageRows(w, 2);
        const RunReport r = w.run();
        for (const Action &a : r.actions)
            QVERIFY2(a.heldReason.contains(QStringLiteral("run.guard.maxActions")),
                     qPrintable(a.heldReason));
    }

    // An action an operator rejected is settled, not waiting: not held even under approve.
    void aRejectedActionIsNotHeld()
    {
        World w;
        w.config.domains[1].failPolicy = Policy::Approve;
        imageRows(w, 1);
        w.store.rejections << Rejection{
            QStringLiteral("image"),      QStringLiteral("ij_0"),
            QStringLiteral("QUEUED"),     QStringLiteral("2026-01-01 10:00:00.123"),
            QStringLiteral("alice@host"), QDateTime::currentDateTimeUtc()};
        const RunReport r = w.run();
        const Action *a = findAction(r, QStringLiteral("image/ij_0"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Rejected);
        QVERIFY(a->heldReason.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBlastRadius)
#include "test_blastradius.moc"
