// SPEC §4 against real servers: the retry budget turns a job that keeps dying into a FAIL;
// an approved action is re-checked (lock + fresh lookup) before it runs; every attempt is
// audited with who, what, the precondition, the result and the generation.
#include "service/engine.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

RunReport runAuto(Engine &engine, bool execute = true)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.executeActions = execute;
    r.actor =
        Actor{QStringLiteral("operator"), QStringLiteral("testhost"), QStringLiteral("alice"), {}};
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

class TestBudgetRecheck : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    std::unique_ptr<SeededIncident> m_incident;
    QString m_composeRow;
    QString m_composeJob;

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
        m_incident = std::make_unique<SeededIncident>(m_env, 3, 1, false);
        QVERIFY(m_incident->ready());
        const auto rows =
            m_incident->rowsOfKind(QStringLiteral("restorable-compose-no-queue-entry"));
        QVERIFY(!rows.isEmpty());
        m_composeRow = rows.first().value(QStringLiteral("id")).toString();
        m_composeJob = rows.first().value(QStringLiteral("currentJobId")).toString();
    }

    void aJobThatKeepsDyingIsFailedOnceItsBudgetIsSpent()
    {
        ReclaimConfig config = sampleConfig(m_env);
        config.domains[1].maxRequeues = 2;
        Engine engine(config);
        for (int attempt = 1; attempt <= 3; ++attempt) {
            const RunReport report = runAuto(engine);
            const Action *a = actionFor(report, m_composeRow);
            QVERIFY2(a, qPrintable(QStringLiteral("attempt %1: no action").arg(attempt)));
            if (attempt <= 2) {
                QCOMPARE(actionKindName(a->kind), QStringLiteral("REQUEUE"));
                QCOMPARE(actionResultName(a->result), QStringLiteral("applied"));
                // The worker dies again: its job vanishes, its row is PROCESSING and old.
                auto r = redis(m_env);
                r.command({QByteArrayLiteral("LREM"),
                           QByteArrayLiteral("bull:video-generation:wait"), QByteArrayLiteral("0"),
                           m_composeJob.toUtf8()});
                r.command({QByteArrayLiteral("DEL"),
                           QByteArrayLiteral("bull:video-generation:") + m_composeJob.toUtf8()});
                sql(m_env,
                    QStringLiteral("UPDATE \"VideoJob\" SET status = 'PROCESSING', "
                                   "\"updatedAt\" = now() - interval '2 hours' WHERE id = ?"),
                    {m_composeRow});
            } else {
                QCOMPARE(actionKindName(a->kind), QStringLiteral("FAIL"));
                QCOMPARE(actionResultName(a->result), QStringLiteral("applied"));
                QVERIFY2(a->reason.contains(QStringLiteral("requeued 2 times")),
                         qPrintable(a->reason));
            }
        }
        const auto row =
            sql(m_env, QStringLiteral("SELECT status, error FROM \"VideoJob\" WHERE id = ?"),
                {m_composeRow});
        QCOMPARE(row.first().at(0).toString(), QStringLiteral("FAILED"));
        QVERIFY(row.first().at(1).toString().contains(QStringLiteral("budget")));
    }

    void anApprovedActionIsReCheckedAndDroppedIfNoLongerAbsent()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport planned =
            runAuto(engine, false); // the console plans; the operator approves later
        const Action *a = actionFor(planned, m_composeRow);
        QVERIFY(a);
        QCOMPARE(actionResultName(a->result), QStringLiteral("pending"));
        const CandidateVerdict *v = planned.find(QStringLiteral("video"), m_composeRow);
        QVERIFY(v);

        // Meanwhile the application re-enqueued the job itself.
        runNode(m_env, QStringLiteral("producer.js"),
                {QStringLiteral("--queue"), QStringLiteral("video-generation"),
                 QStringLiteral("--id"), m_composeJob, QStringLiteral("--name"),
                 QStringLiteral("compose"), QStringLiteral("--data"),
                 QStringLiteral("{\"jobId\":\"%1\"}").arg(m_composeRow)});
        const Action done = engine.approve(
            *a, v->candidate,
            Actor{QStringLiteral("operator"), QStringLiteral("h"), QStringLiteral("alice"), {}});
        QCOMPARE(actionResultName(done.result), QStringLiteral("dropped"));
        QVERIFY2(done.resultDetail.contains(QStringLiteral("SCHEDULED")),
                 qPrintable(done.resultDetail));
        const auto row = sql(m_env, QStringLiteral("SELECT status FROM \"VideoJob\" WHERE id = ?"),
                             {m_composeRow});
        QCOMPARE(row.first().first().toString(), v->candidate.status);
    }

    void anApprovedActionWaitsForTheLock()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport planned = runAuto(engine, false);
        const Action *a = actionFor(planned, m_composeRow);
        QVERIFY(a);
        redis(m_env).command({QByteArrayLiteral("SET"), QByteArrayLiteral("lock:job-recovery"),
                              QByteArrayLiteral("reclaim;host=elsewhere;pid=1;since=x;nonce=y"),
                              QByteArrayLiteral("PX"), QByteArrayLiteral("60000")});
        const Action done = engine.approve(
            *a, planned.find(QStringLiteral("video"), m_composeRow)->candidate,
            Actor{QStringLiteral("operator"), QStringLiteral("h"), QStringLiteral("alice"), {}});
        QCOMPARE(actionResultName(done.result), QStringLiteral("dropped"));
        QVERIFY2(done.resultDetail.contains(QStringLiteral("host=elsewhere")),
                 qPrintable(done.resultDetail));
    }

    void everyAttemptIsAuditedWithItsPreconditionAndGeneration()
    {
        Engine engine(sampleConfig(m_env));
        const RunReport report = runAuto(engine);
        QVERIFY(report.actions.size() >= 5);
        const auto audit =
            sql(m_env,
                QStringLiteral("SELECT row_id, action, result, generation, actor_kind, actor_host, "
                               "actor_user, observed_status, observed_updated_at, run_id "
                               "FROM reclaim.audit ORDER BY id"));
        QCOMPARE(audit.size(), report.actions.size());
        for (qsizetype i = 0; i < audit.size(); ++i) {
            const QVariantList &row = audit.at(i);
            const Action &a = report.actions.at(i);
            QCOMPARE(row.at(0).toString(), a.rowId);
            QCOMPARE(row.at(1).toString(), actionKindName(a.kind));
            QCOMPARE(row.at(2).toString(), actionResultName(a.result));
            QCOMPARE(row.at(3).toLongLong(), report.lock.generation);
            QCOMPARE(row.at(4).toString(), QStringLiteral("operator"));
            QCOMPARE(row.at(5).toString(), QStringLiteral("testhost"));
            QCOMPARE(row.at(6).toString(), QStringLiteral("alice"));
            QCOMPARE(row.at(7).toString(), a.precondition.status);
            QCOMPARE(row.at(8).toString(), a.precondition.updatedAtText);
            QCOMPARE(row.at(9).toString(), report.runId);
        }
    }
};

QTEST_GUILESS_MAIN(TestBudgetRecheck)
#include "test_budgetrecheck.moc"
