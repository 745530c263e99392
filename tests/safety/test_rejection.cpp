// An operator's rejection against real servers: recorded in reclaim.rejection and reclaim.audit
// (who, when, the precondition seen), not offered again by the next runs while the row is
// unchanged — neither by a console's plan nor by an automatic run that executes — offered again
// once the row moves on, and offered again after an undo (which is audited too).
#include "service/engine.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const Actor kAlice{QStringLiteral("operator"), QStringLiteral("ops1"), QStringLiteral("alice"), {}};

RunReport runOnce(Engine &engine, bool execute)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.executeActions = execute;
    r.actor = kAlice;
    return engine.run(r);
}

const Action *actionFor(const RunReport &report, const QString &rowId)
{
    for (const Action &a : report.actions)
        if (a.rowId == rowId)
            return &a;
    return nullptr;
}

} // namespace

class TestRejection : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    std::unique_ptr<SeededIncident> m_incident;
    QString m_row; // an orphaned video EXPORT job, which a run would FAIL

    QList<QVariantList> audit(const QString &result)
    {
        return sql(m_env,
                   QStringLiteral("SELECT actor_user, actor_host, observed_status, "
                                  "observed_updated_at, at, detail FROM reclaim.audit WHERE "
                                  "row_id = ? AND result = ? ORDER BY id"),
                   {m_row, result});
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
    }

    void init()
    {
        resetSandbox(m_env);
        migrate(m_env);
        m_incident = std::make_unique<SeededIncident>(m_env, 5, 1, false);
        QVERIFY(m_incident->ready());
        const auto rows = m_incident->rowsOfKind(QStringLiteral("orphan-export-parent-ready"));
        QVERIFY2(!rows.isEmpty(), "the incident has no orphaned EXPORT job");
        m_row = rows.first().value(QStringLiteral("id")).toString();
    }

    void aRejectionIsRecordedAndNotOfferedAgainWhileTheRowIsUnchanged()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport planned = runOnce(engine, false);
        const Action *a = actionFor(planned, m_row);
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Pending);

        const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-5);
        const auto recorded = engine.reject(*a, kAlice);
        QVERIFY2(recorded.hasValue(), qPrintable(recorded ? QString() : recorded.error().message));
        QCOMPARE(recorded->by, QStringLiteral("alice@ops1"));

        // Who, when and the precondition seen, in the audit.
        const auto rows = audit(QStringLiteral("rejected"));
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().at(0).toString(), QStringLiteral("alice"));
        QCOMPARE(rows.first().at(1).toString(), QStringLiteral("ops1"));
        QCOMPARE(rows.first().at(2).toString(), a->precondition.status);
        QCOMPARE(rows.first().at(3).toString(), a->precondition.updatedAtText);
        QVERIFY(rows.first().at(4).toDateTime() >= before);

        // The next console run does not offer it, and an automatic run does not execute it.
        const RunReport next = runOnce(engine, false);
        const Action *b = actionFor(next, m_row);
        QVERIFY(b);
        QCOMPARE(b->result, ActionResult::Rejected);
        QCOMPARE(b->rejectedBy, QStringLiteral("alice@ops1"));
        const RunReport automatic = runOnce(engine, true);
        QCOMPARE(actionFor(automatic, m_row)->result, ActionResult::Rejected);
        const auto row = sql(m_env,
                             QStringLiteral("SELECT status, \"updatedAt\"::text FROM "
                                            "\"VideoJob\" WHERE id = ?"),
                             {m_row});
        QCOMPARE(row.first().at(0).toString(), a->precondition.status);
        QCOMPARE(row.first().at(1).toString(), a->precondition.updatedAtText);
        // Orphans nobody rejected were recovered by the same run.
        QVERIFY(automatic.count(ActionResult::Applied) >= 1);
    }

    void aRowThatMovedOnIsOfferedAgain()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport planned = runOnce(engine, false);
        const Action *a = actionFor(planned, m_row);
        QVERIFY(a);
        QVERIFY(engine.reject(*a, kAlice).hasValue());
        // A worker saved progress, then died again: same status, a later (still old) updatedAt.
        sql(m_env,
            QStringLiteral("UPDATE \"VideoJob\" SET \"updatedAt\" = \"updatedAt\" + interval "
                           "'1 millisecond' WHERE id = ?"),
            {m_row});
        const RunReport next = runOnce(engine, false);
        const Action *b = actionFor(next, m_row);
        QVERIFY(b);
        QCOMPARE(b->result, ActionResult::Pending);
        QVERIFY(b->rejectedBy.isEmpty());
    }

    void anUndoneRejectionIsOfferedAgainAndAudited()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport planned = runOnce(engine, false);
        const Action *a = actionFor(planned, m_row);
        QVERIFY(a);
        QVERIFY(engine.reject(*a, kAlice).hasValue());
        const RunReport rejected = runOnce(engine, false);
        QCOMPARE(actionFor(rejected, m_row)->result, ActionResult::Rejected);

        const auto undone = engine.undoRejection(*actionFor(rejected, m_row), kAlice);
        QVERIFY2(undone.hasValue(), qPrintable(undone ? QString() : undone.error().message));
        QCOMPARE(*undone, 1);
        QCOMPARE(audit(QStringLiteral("rejection-undone")).size(), 1);
        const auto left = sql(m_env,
                              QStringLiteral("SELECT count(*) FROM reclaim.rejection WHERE "
                                             "row_id = ? AND undone_at IS NULL"),
                              {m_row});
        QCOMPARE(left.first().first().toInt(), 0);
        // Undoing again finds nothing to undo and audits nothing more.
        QCOMPARE(*engine.undoRejection(*a, kAlice), 0);
        QCOMPARE(audit(QStringLiteral("rejection-undone")).size(), 1);

        const RunReport next = runOnce(engine, false);
        QCOMPARE(actionFor(next, m_row)->result, ActionResult::Pending);
    }

    // The schema change is additive: creating it twice (a second writing run) is harmless.
    void theRejectionTableIsCreatedIdempotently()
    {
        Engine engine(sampleConfig(m_env));
        runOnce(engine, false);
        runOnce(engine, false);
        const auto t =
            sql(m_env, QStringLiteral("SELECT to_regclass('reclaim.rejection') IS NOT NULL"));
        QVERIFY(t.first().first().toBool());
    }
};

QTEST_GUILESS_MAIN(TestRejection)
#include "test_rejection.moc"
