// The recovery core against the seeded reference incident: real PostgreSQL, real Redis, states
// made by the real bullmq package, and the seeder's manifest as the oracle. A dry run and an
// auto run must reach every expected verdict and apply exactly the expected actions, and a job
// Reclaim requeues must be taken and completed by an unmodified bullmq worker.
#include "service/engine.h"
#include "support/manifestcheck.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "testprint.h"
#include "worldsnapshot.h"

#include <QJsonDocument>
#include <QSet>
#include <QTemporaryFile>
#include <QTest>
#include <memory>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const Action *findAction(const RunReport &r, const QString &id)
{
    for (const Action &a : r.actions)
        if (a.id == id)
            return &a;
    return nullptr;
}

RunRequest request(bool dryRun)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.dryRun = dryRun;
    r.actor =
        Actor{QStringLiteral("test"), QStringLiteral("test-host"), QStringLiteral("tester"), {}};
    return r;
}

} // namespace

class TestIncident : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    std::unique_ptr<SeededIncident> m_incident;

    QJsonObject manifest() const { return m_incident->manifest(); }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
    }

    // A fresh incident for every test: each one may change it.
    void init()
    {
        resetSandbox(m_env);
        migrate(m_env);
        m_incident = std::make_unique<SeededIncident>(m_env, 1, 1, true);
        QVERIFY(m_incident->ready());
        QVERIFY(m_incident->manifest().value(QStringLiteral("hold")).toBool());
    }

    void cleanup() { m_incident.reset(); }

    void dryRunReachesEveryVerdictAndChangesNothing()
    {
        const auto rowsBefore = databaseRows(m_env);
        Engine engine(sampleConfig(m_env));
        const RunReport report = engine.run(request(true));
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        QCOMPARE(report.lock.state, LockReport::State::NotAttempted);
        const QStringList problems = verdictProblems(manifest(), report);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        for (const Action &a : report.actions)
            QCOMPARE(a.result, ActionResult::Pending);
        const QStringList changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        QVERIFY(!redisKeyExists(m_env, QByteArrayLiteral("lock:job-recovery")));
        QVERIFY(!redisKeyExists(m_env, QByteArrayLiteral("lock:job-recovery:generation")));
    }

    void autoRunAppliesExactlyTheExpectedActions()
    {
        const QJsonObject m = manifest();
        const auto rowsBefore = databaseRows(m_env);
        Engine engine(sampleConfig(m_env));
        const RunReport report = engine.run(request(false));
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        QCOMPARE(report.lock.state, LockReport::State::Acquired);
        QVERIFY(report.lock.released);
        QVERIFY(!report.lock.lost);
        const QStringList problems = verdictProblems(m, report);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

        // Every expected action, applied; no other action.
        QSet<QString> expectedToChange;
        int expectedActions = 0;
        for (const QJsonValue &value : m.value(QStringLiteral("rows")).toArray()) {
            const QJsonObject row = value.toObject();
            const QString kind = str(row, "expectedAction");
            if (kind.isEmpty())
                continue;
            ++expectedActions;
            const Action *a =
                findAction(report, str(row, "domain") + QLatin1Char('/') + str(row, "id"));
            QVERIFY2(a, qPrintable(rowName(row) + QStringLiteral(": no action")));
            QCOMPARE(actionKindName(a->kind), kind);
            QVERIFY2(
                a->result == ActionResult::Applied,
                qPrintable(QStringLiteral("%1: %2 %3")
                               .arg(rowName(row), actionResultName(a->result), a->resultDetail)));
            expectedToChange << str(row, "table") + QLatin1Char('/') + str(row, "id");
            const QJsonObject parent = row.value(QStringLiteral("parent")).toObject();
            if (str(parent, "after") != str(parent, "before"))
                expectedToChange << str(parent, "table") + QLatin1Char('/') + str(parent, "id");
            if (kind == QLatin1String("REQUEUE")) {
                const QJsonObject to = row.value(QStringLiteral("requeueTo")).toObject();
                QCOMPARE(a->queue, str(to, "queue"));
                QCOMPARE(a->jobId, str(to, "bullJobId"));
                QCOMPARE(QJsonDocument::fromJson(a->payload).object(),
                         row.value(QStringLiteral("restorePayload")).toObject());
            }
        }
        QCOMPARE(report.actions.size(), expectedActions);

        // The database after the run: the expected rows and parents changed as the manifest says,
        // and nothing else moved — no healthy (SCHEDULED) row, no bystander.
        const auto rowsAfter = databaseRows(m_env);
        for (const QJsonValue &value : m.value(QStringLiteral("rows")).toArray()) {
            const QJsonObject row = value.toObject();
            const QString kind = str(row, "expectedAction");
            const QJsonObject parent = row.value(QStringLiteral("parent")).toObject();
            const QJsonObject p = rowFields(rowsAfter, str(parent, "table"), str(parent, "id"));
            QVERIFY2(p.value(str(parent, "column")).toString() == str(parent, "after"),
                     qPrintable(QStringLiteral("%1: parent %2 is %3, expected %4")
                                    .arg(rowName(row), str(parent, "column"),
                                         p.value(str(parent, "column")).toString(),
                                         str(parent, "after"))));
            if (kind.isEmpty())
                continue;
            const QJsonObject job = rowFields(rowsAfter, str(row, "table"), str(row, "id"));
            if (kind == QLatin1String("FAIL")) {
                QCOMPARE(job.value(QStringLiteral("status")).toString(), QStringLiteral("FAILED"));
                QVERIFY(!job.value(QStringLiteral("error")).toString().isEmpty());
            } else {
                QCOMPARE(job.value(QStringLiteral("status")).toString(), QStringLiteral("QUEUED"));
                QCOMPARE(job.value(QStringLiteral("progress")).toInt(), 0);
                QVERIFY(job.value(QStringLiteral("error")).isNull());
            }
        }
        QStringList unexpected;
        for (const QString &line : differences(rowsBefore, rowsAfter))
            if (!expectedToChange.contains(line.section(QLatin1Char(' '), 1)))
                unexpected << line;
        QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(QLatin1Char('\n'))));

        // An independent check of Redis and PostgreSQL with plain commands (not our code).
        QTemporaryFile file;
        QVERIFY(file.open());
        file.write(QJsonDocument(m).toJson());
        file.flush();
        const QByteArray out =
            runNode(m_env, QStringLiteral("check-manifest.js"),
                    {QStringLiteral("--manifest"), file.fileName(), QStringLiteral("--phase"),
                     QStringLiteral("after"), QStringLiteral("--quiet")});
        QVERIFY2(!QTest::currentTestFailed(), out.constData());
    }

    // SPEC §4: what Reclaim enqueues is taken and completed by an unmodified bullmq Worker —
    // both into an empty slot and over a retained failed job under the same id.
    void requeuedJobsAreCompletedByARealWorker()
    {
        const QJsonObject m = manifest();
        const QList<QJsonObject> fresh = manifestRows(
            m, QStringLiteral("video"), QStringLiteral("restorable-compose-no-queue-entry"));
        const QList<QJsonObject> retained = manifestRows(
            m, QStringLiteral("video"), QStringLiteral("restorable-compose-retained-failed"));
        QCOMPARE(fresh.size(), 1);
        QCOMPARE(retained.size(), 1);
        const QList<QJsonObject> requeued{fresh.first(), retained.first()};
        const QString retainedId =
            str(retained.first().value(QStringLiteral("retained")).toObject(), "bullJobId");
        QCOMPARE(str(retained.first().value(QStringLiteral("retained")).toObject(), "state"),
                 QStringLiteral("failed"));

        Engine engine(sampleConfig(m_env));
        const RunReport report = engine.run(request(false));
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        QString lastEnqueued;
        for (const Action &a : report.actions) {
            if (a.kind != ActionKind::Requeue)
                continue;
            QCOMPARE(a.result, ActionResult::Applied);
            lastEnqueued = a.jobId;
        }
        QVERIFY(!lastEnqueued.isEmpty());

        // bullmq's own reading of the requeued jobs, before any worker runs.
        for (const QJsonObject &row : requeued) {
            const QString id = str(row.value(QStringLiteral("requeueTo")).toObject(), "bullJobId");
            const QJsonObject seen =
                QJsonDocument::fromJson(
                    runNode(m_env, QStringLiteral("state.js"),
                            {QStringLiteral("--queue"), QStringLiteral("video-generation"),
                             QStringLiteral("--id"), id}))
                    .object();
            QCOMPARE(str(seen, "state"), QStringLiteral("waiting"));
            QCOMPARE(seen.value(QStringLiteral("data")).toObject(),
                     row.value(QStringLiteral("restorePayload")).toObject());
        }
        QVERIFY(!retainedId.isEmpty());

        // The worker takes the oldest waiting job first, so --until-id the last requeue also
        // runs the first one. It marks each job's row COMPLETED, as the app does.
        const QByteArray out =
            runNode(m_env, QStringLiteral("worker.js"),
                    {QStringLiteral("--queue"), QStringLiteral("video-generation"),
                     QStringLiteral("--until-id"), lastEnqueued, QStringLiteral("--timeout-ms"),
                     QStringLiteral("60000"), QStringLiteral("--table"), QStringLiteral("VideoJob"),
                     QStringLiteral("--validate")},
                    90000);
        QVERIFY(!QTest::currentTestFailed());
        QHash<QString, QJsonObject> completed;
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject e = QJsonDocument::fromJson(line).object();
            if (str(e, "event") == QLatin1String("completed"))
                completed.insert(str(e, "id"), e);
        }
        auto conn = redis(m_env);
        for (const QJsonObject &row : requeued) {
            const QString id = str(row.value(QStringLiteral("requeueTo")).toObject(), "bullJobId");
            QVERIFY2(completed.contains(id),
                     qPrintable(QStringLiteral("%1 was not completed; worker said:\n%2")
                                    .arg(id, QString::fromUtf8(out))));
            QCOMPARE(str(completed.value(id), "name"), QStringLiteral("compose"));
            QCOMPARE(completed.value(id).value(QStringLiteral("data")).toObject(),
                     row.value(QStringLiteral("restorePayload")).toObject());
            auto score =
                conn.command({QByteArrayLiteral("ZSCORE"),
                              QByteArrayLiteral("bull:video-generation:completed"), id.toUtf8()});
            QVERIFY(score && !score->isNil());
            const auto status =
                sql(m_env, QStringLiteral("SELECT status FROM \"VideoJob\" WHERE id = ?"),
                    {str(row, "id")});
            QCOMPARE(status.value(0).value(0).toString(), QStringLiteral("COMPLETED"));
        }
        // The retained failed job is gone from the failed set: replaced, not shadowed.
        auto failed =
            conn.command({QByteArrayLiteral("ZSCORE"),
                          QByteArrayLiteral("bull:video-generation:failed"), retainedId.toUtf8()});
        QVERIFY(failed && failed->isNil());
    }
};

QTEST_GUILESS_MAIN(TestIncident)
#include "test_incident.moc"
