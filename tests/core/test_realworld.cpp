// The recovery core against real servers in the awkward cases: a row that moves on between our
// read and our write, microsecond timestamps, a lookup that errors for one candidate only, and a
// wait list longer than the probe may walk, a restore query that returns broken JSON, and job
// tables in schemas of their own. One seeded incident is shared; each test works on its own
// domain, so they do not disturb each other.
#include "config/configloader.h"
#include "postgres/pgjobstore.h"
#include "service/engine.h"
#include "service/redisadapters.h"
#include "support/callbackprogress.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "testprint.h"
#include "worldsnapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QUrl>
#include <QUuid>
#include <functional>
#include <memory>

using namespace reclaim;
using namespace reclaim::test;

namespace {

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

const Action *findAction(const RunReport &r, const QString &id)
{
    for (const Action &a : r.actions)
        if (a.id == id)
            return &a;
    return nullptr;
}

// The newest job of a queue (the head of its wait list, `waitKey` "bull:<queue>:wait") and the
// row id its payload names; both left empty when the list is empty or cannot be read.
void waitHead(RedisConnection &conn, const QByteArray &waitKey, QString &jobId, QString &rowId)
{
    auto head = conn.command({QByteArrayLiteral("LINDEX"), waitKey, QByteArrayLiteral("0")});
    if (!head || head->type != RedisValue::Type::String)
        return;
    const QByteArray queuePrefix = waitKey.left(waitKey.size() - 4); // "bull:<queue>:"
    auto data = conn.command(
        {QByteArrayLiteral("HGET"), queuePrefix + head->string, QByteArrayLiteral("data")});
    if (!data || data->type != RedisValue::Type::String)
        return;
    jobId = QString::fromUtf8(head->string);
    rowId = str(QJsonDocument::fromJson(data->string).object(), "jobId");
}

RunRequest request(bool dryRun = false, RunProgress *progress = nullptr)
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.dryRun = dryRun;
    r.progress = progress;
    r.actor =
        Actor{QStringLiteral("test"), QStringLiteral("test-host"), QStringLiteral("tester"), {}};
    return r;
}

QString parentValue(const SandboxEnv &env, const QJsonObject &row)
{
    const QJsonObject parent = row.value(QStringLiteral("parent")).toObject();
    return sql(env,
               QStringLiteral("SELECT \"%1\" FROM \"%2\" WHERE id = ?")
                   .arg(str(parent, "column"), str(parent, "table")),
               {str(parent, "id")})
        .value(0)
        .value(0)
        .toString();
}

} // namespace

class TestRealWorld : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    QJsonObject m_manifest;

    // The sample configuration reduced to one domain: a test recovers only its own rows.
    ReclaimConfig configFor(const QString &domain) const
    {
        ReclaimConfig config = sampleConfig(m_env);
        QList<DomainConfig> kept;
        for (const DomainConfig &d : config.domains)
            if (d.name == domain)
                kept << d;
        config.domains = kept;
        return config;
    }

    QJsonObject onlyRow(const QString &domain, const QString &kind) const
    {
        const auto rows = manifestRows(m_manifest, domain, kind);
        if (rows.size() != 1)
            QTest::qFail(
                qPrintable(
                    QStringLiteral("expected one %1/%2 row in the manifest").arg(domain, kind)),
                __FILE__, __LINE__);
        return rows.value(0);
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 1, 1, false);
        QVERIFY(incident.ready());
        m_manifest = incident.manifest();
    }

    // Each row's JSON is read only when asked for (the console's details view): a headless run
    // reads the same candidates, in the same order, with the same keys, and none of the rows'
    // JSON (#30: at 100,000 candidates it was most of what the candidate query sent).
    void aRowsJsonIsReadOnlyWhenAskedFor()
    {
        const ReclaimConfig config = configFor(QStringLiteral("image"));
        auto store = PgJobStore::open(config, true);
        QVERIFY2(store, store ? "" : qPrintable(store.error().message));
        const auto skipped = (*store)->readCandidates(config.domains.first(), RowJson::Skip);
        const auto read = (*store)->readCandidates(config.domains.first(), RowJson::Read);
        QVERIFY2(skipped, skipped ? "" : qPrintable(skipped.error().message));
        QVERIFY2(read, read ? "" : qPrintable(read.error().message));
        QVERIFY(skipped->size() >= 2);
        QCOMPARE(skipped->size(), read->size());
        for (qsizetype i = 0; i < read->size(); ++i) {
            const Candidate &s = skipped->at(i);
            const Candidate &r = read->at(i);
            QCOMPARE(s.id, r.id);
            QCOMPARE(s.status, r.status);
            QCOMPARE(s.updatedAtText, r.updatedAtText);
            QVERIFY(s.rowJson.isEmpty());
            const QJsonObject row = QJsonDocument::fromJson(r.rowJson).object();
            QCOMPARE(row.value(QStringLiteral("id")).toString(), r.id);
        }
        // A run as the daemon makes it holds no row's JSON; one as the console makes it does.
        Engine engine(config);
        RunRequest dry = request(true);
        const RunReport headless = engine.run(dry);
        dry.rowJson = RowJson::Read;
        const RunReport console = engine.run(dry);
        QCOMPARE(headless.count(Verdict::Absent), console.count(Verdict::Absent));
        for (const CandidateVerdict &v : headless.domains.first().candidates)
            QVERIFY(v.candidate.rowJson.isEmpty());
        const CandidateVerdict *absent = nullptr;
        for (const CandidateVerdict &v : console.domains.first().candidates)
            if (v.verdict == Verdict::Absent)
                absent = &v;
        QVERIFY(absent);
        QCOMPARE(QJsonDocument::fromJson(absent->candidate.rowJson)
                     .object()
                     .value(QStringLiteral("id"))
                     .toString(),
                 absent->candidate.id);
    }

    // A worker completes the job (or saves progress) after Reclaim read the row and before it
    // writes: the conditional write changes 0 rows, the action is Stale, and the parent — which
    // a FAIL would have moved to FAILED — is left as it is.
    void rowThatMovesOnIsLeftAlone_data()
    {
        QTest::addColumn<QString>("domain");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("workerWrite");
        QTest::addColumn<QString>("statusAfter");
        QTest::newRow("worker completed it")
            << QStringLiteral("slide") << QStringLiteral("orphan-generate-parent-processing")
            << QStringLiteral("UPDATE \"SlideJob\" SET status = 'COMPLETED', progress = 100, "
                              "\"updatedAt\" = now() AT TIME ZONE 'UTC' WHERE id = ?")
            << QStringLiteral("COMPLETED");
        QTest::newRow("worker saved progress")
            << QStringLiteral("document") << QStringLiteral("orphan-processing-no-queue-entry")
            << QStringLiteral("UPDATE \"DocumentJob\" SET progress = 55, \"updatedAt\" = now() AT "
                              "TIME ZONE 'UTC' "
                              "WHERE id = ?")
            << QStringLiteral("PROCESSING");
    }
    void rowThatMovesOnIsLeftAlone()
    {
        QFETCH(QString, domain);
        QFETCH(QString, kind);
        QFETCH(QString, workerWrite);
        QFETCH(QString, statusAfter);
        const QJsonObject row = onlyRow(domain, kind);
        QCOMPARE(str(row, "expectedAction"), QStringLiteral("FAIL"));
        const QString parentBefore = parentValue(m_env, row);
        QCOMPARE(parentBefore, QStringLiteral("PROCESSING")); // a FAIL would move it

        bool wrote = false;
        CallbackProgress progress([&](const QString &phase, int, int) {
            if (phase == QLatin1String("execute") && !wrote) {
                wrote = true;
                sql(m_env, workerWrite, {str(row, "id")});
            }
        });
        Engine engine(configFor(domain));
        const RunReport report = engine.run(request(false, &progress));
        QVERIFY(wrote);
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        const Action *a = findAction(report, domain + QLatin1Char('/') + str(row, "id"));
        QVERIFY(a);
        QCOMPARE(a->kind, ActionKind::Fail);
        QCOMPARE(a->result, ActionResult::Stale);
        QVERIFY(!a->parent.attempted);
        QVERIFY2(a->resultDetail.contains(QStringLiteral("0 rows")), qPrintable(a->resultDetail));
        // The worker's write stands; the parent is untouched.
        const auto now = sql(
            m_env,
            QStringLiteral("SELECT status, error FROM \"%1\" WHERE id = ?").arg(str(row, "table")),
            {str(row, "id")});
        QCOMPARE(now.value(0).value(0).toString(), statusAfter);
        QVERIFY(now.value(0).value(1).isNull());
        QCOMPARE(parentValue(m_env, row), parentBefore);
        const auto audit =
            sql(m_env, QStringLiteral("SELECT result FROM reclaim.audit WHERE row_id = ?"),
                {str(row, "id")});
        QCOMPARE(audit.value(0).value(0).toString(), QStringLiteral("stale"));
        // The run itself was live: the domain's other orphans were recovered.
        QVERIFY(report.count(ActionResult::Applied) >= 1);
    }

    // Timestamps with microseconds (timestamp(6), not Prisma's timestamp(3)): the precondition
    // must go back to PostgreSQL with every digit, or the conditional write matches 0 rows.
    void microsecondTimestampsRoundTrip()
    {
        const QJsonObject row =
            onlyRow(QStringLiteral("image"), QStringLiteral("orphan-processing-no-queue-entry"));
        sql(m_env, QStringLiteral(
                       "ALTER TABLE \"ImageJob\" ALTER COLUMN \"updatedAt\" TYPE timestamp(6)"));
        const auto set = sql(
            m_env,
            QStringLiteral(
                "UPDATE \"ImageJob\" SET \"updatedAt\" = date_trunc('second', now() AT TIME ZONE "
                "'UTC' - interval '3 hours') + interval '0.123456 second' WHERE id = ? "
                "RETURNING \"updatedAt\"::text"),
            {str(row, "id")});
        const QString written = set.value(0).value(0).toString();
        QVERIFY2(written.endsWith(QLatin1String(".123456")), qPrintable(written));

        Engine engine(configFor(QStringLiteral("image")));
        const RunReport report = engine.run(request());
        const CandidateVerdict *v = report.find(QStringLiteral("image"), str(row, "id"));
        QVERIFY(v);
        QCOMPARE(v->candidate.updatedAtText, written);
        QCOMPARE(v->verdict, Verdict::Absent);
        const Action *a = findAction(report, QStringLiteral("image/") + str(row, "id"));
        QVERIFY(a);
        QCOMPARE(a->precondition.updatedAtText, written);
        QVERIFY2(a->result == ActionResult::Applied,
                 qPrintable(actionResultName(a->result) + QLatin1Char(' ') + a->resultDetail));
        QCOMPARE(a->parent.rows, 1);
        const auto now = sql(m_env, QStringLiteral("SELECT status FROM \"ImageJob\" WHERE id = ?"),
                             {str(row, "id")});
        QCOMPARE(now.value(0).value(0).toString(), QStringLiteral("FAILED"));
        QCOMPARE(parentValue(m_env, row), QStringLiteral("FAILED"));
    }

    // Nothing here may pass if an error were read as "not found". The job hash of one candidate
    // (a retained failed job) is replaced by a string, so the probe script fails with WRONGTYPE
    // for that candidate only. Read as "missing", that candidate would be ABSENT and its row
    // written FAILED — this test would then fail on the unchanged row. Read correctly, it is
    // UNKNOWN and untouched, while the true orphan next to it is still recovered.
    void lookupErrorForOneCandidateIsUnknownNotMissing()
    {
        const QJsonObject broken =
            onlyRow(QStringLiteral("narration"), QStringLiteral("retained-failed-row-processing"));
        const QJsonObject orphan =
            onlyRow(QStringLiteral("narration"), QStringLiteral("queued-job-removed"));
        const QByteArray jobKey = QStringLiteral("bull:%1:%2")
                                      .arg(str(broken, "queue"), str(broken, "bullJobId"))
                                      .toUtf8();
        {
            auto conn = redis(m_env);
            auto type = conn.command({QByteArrayLiteral("TYPE"), jobKey});
            QVERIFY(type);
            QCOMPARE(type->string, QByteArrayLiteral("hash"));
            QVERIFY(conn.command({QByteArrayLiteral("DEL"), jobKey}));
            QVERIFY(conn.command(
                {QByteArrayLiteral("SET"), jobKey, QByteArrayLiteral("not a job hash")}));
        }
        const auto rowsBefore = databaseRows(m_env);

        Engine engine(configFor(QStringLiteral("narration")));
        const RunReport report = engine.run(request());
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);

        const CandidateVerdict *v = report.find(QStringLiteral("narration"), str(broken, "id"));
        QVERIFY(v);
        QCOMPARE(v->verdict, Verdict::Unknown);
        QVERIFY2(v->unknownReason.contains(QStringLiteral("WRONGTYPE")),
                 qPrintable(v->unknownReason));
        QVERIFY(v->evidence.first().failed());
        QVERIFY(!findAction(report, QStringLiteral("narration/") + str(broken, "id")));
        const QString table = str(broken, "table");
        QCOMPARE(rowFields(databaseRows(m_env), table, str(broken, "id")),
                 rowFields(rowsBefore, table, str(broken, "id")));
        QCOMPARE(parentValue(m_env, broken), QStringLiteral("PROCESSING"));

        // Its neighbour, a true orphan in the same queue, is recovered in the same run.
        QCOMPARE(report.find(QStringLiteral("narration"), str(orphan, "id"))->verdict,
                 Verdict::Absent);
        const Action *a = findAction(report, QStringLiteral("narration/") + str(orphan, "id"));
        QVERIFY(a);
        QCOMPARE(a->result, ActionResult::Applied);
        QCOMPARE(parentValue(m_env, orphan),
                 str(orphan.value(QStringLiteral("parent")).toObject(), "after"));
        // And the healthy jobs of the paused queue are still seen as such.
        for (const QJsonObject &row :
             manifestRows(m_manifest, QStringLiteral("narration"), QStringLiteral("paused-queue")))
            QCOMPARE(report.find(QStringLiteral("narration"), str(row, "id"))->verdict,
                     Verdict::Scheduled);
    }

    // The real probe script with a wait list longer than it may walk: it answers
    // "list-unresolved", and the core reads the list once instead — still a direct sighting.
    void waitListLongerThanTheProbeLimit()
    {
        const QByteArray waitKey = QByteArrayLiteral("bull:slide-generation:wait");
        QString jobId;
        qint64 length = 0;
        QString rowId;
        {
            auto conn = redis(m_env);
            auto len = conn.command({QByteArrayLiteral("LLEN"), waitKey});
            QVERIFY(len);
            length = len->integer;
            QVERIFY2(length >= 3,
                     "the seeded slide-generation wait list is too short for this test");
            // The newest job sits at the head, farthest from the tail the probe searches from.
            waitHead(conn, waitKey, jobId, rowId);
            QVERIFY(!jobId.isEmpty());
        }
        QCOMPARE(jobId, QStringLiteral("slide-generate-") +
                            rowId); // a current-id job: direct lookup applies
        // A fresh row: make it old enough to be a candidate.
        const auto aged = sql(
            m_env,
            QStringLiteral("UPDATE \"SlideJob\" SET \"updatedAt\" = now() AT TIME ZONE 'UTC' - "
                           "interval '2 hours' WHERE id = ? AND status = 'QUEUED' RETURNING id"),
            {rowId});
        QCOMPARE(aged.size(), 1);

        ReclaimConfig config = configFor(QStringLiteral("slide"));
        config.run.listProbeLimit =
            static_cast<int>(qMin<qint64>(5, length - 1)); // the head is out of reach
        const JobRef ref{QStringLiteral("bull"), QStringLiteral("slide-generation"), jobId};
        {
            RedisAdapters limited(config.redis, config.run);
            const auto seen = limited.queue.probe({ref});
            QVERIFY(seen.first().hasValue());
            QCOMPARE(seen.first()->state, QStringLiteral("list-unresolved"));
            RunSettings roomy = config.run;
            roomy.listProbeLimit = static_cast<int>(length);
            RedisAdapters unlimited(config.redis, roomy);
            QCOMPARE(unlimited.queue.probe({ref}).first()->state,
                     QStringLiteral("waiting")); // control
        }

        Engine engine(config);
        const RunReport report = engine.run(request(true));
        const CandidateVerdict *v = report.find(QStringLiteral("slide"), rowId);
        QVERIFY2(v, "the aged row is not a candidate");
        QCOMPARE(v->verdict, Verdict::Scheduled);
        const Sighting &s = v->evidence.first();
        QCOMPARE(s.how, FoundBy::Direct);
        QCOMPARE(s.jobId, jobId);
        QCOMPARE(s.state, QStringLiteral("waiting"));
        QVERIFY(!v->scanned);
    }

    // A real bullmq job taken out of every state structure by hand: with a live worker lock on
    // it the candidate is SCHEDULED (held by a worker); once the lock is gone it is ABSENT.
    void aJobHeldByAWorkerLockIsNotAbsent()
    {
        QString jobId, rowId;
        const QByteArray waitKey = QByteArrayLiteral("bull:slide-generation:wait");
        {
            auto conn = redis(m_env);
            waitHead(conn, waitKey, jobId, rowId);
            QVERIFY(!jobId.isEmpty());
            QVERIFY(conn.command(
                {QByteArrayLiteral("LREM"), waitKey, QByteArrayLiteral("0"), jobId.toUtf8()}));
            QVERIFY(conn.command({QByteArrayLiteral("SET"),
                                  QByteArrayLiteral("bull:slide-generation:") + jobId.toUtf8() +
                                      QByteArrayLiteral(":lock"),
                                  QByteArrayLiteral("a-worker-token"), QByteArrayLiteral("PX"),
                                  QByteArrayLiteral("60000")}));
        }
        QVERIFY(jobId.startsWith(QStringLiteral("slide-generate-")));
        const auto aged =
            sql(m_env,
                QStringLiteral("UPDATE \"SlideJob\" SET \"updatedAt\" = now() AT TIME ZONE 'UTC' - "
                               "interval '2 hours' WHERE id = ? RETURNING id"),
                {rowId});
        QCOMPARE(aged.size(), 1);

        Engine engine(configFor(QStringLiteral("slide")));
        const RunReport held = engine.run(request(true));
        const CandidateVerdict *v = held.find(QStringLiteral("slide"), rowId);
        QVERIFY2(v, "the aged row is not a candidate");
        QCOMPARE(v->verdict, Verdict::Scheduled);
        QVERIFY(v->evidence.first().lockTtlMs > 0);
        QVERIFY2(v->summary().contains(QStringLiteral("held by a worker")),
                 qPrintable(v->summary()));

        {
            auto conn = redis(m_env);
            QVERIFY(conn.command(
                {QByteArrayLiteral("DEL"),
                 (QStringLiteral("bull:slide-generation:") + jobId + QStringLiteral(":lock"))
                     .toUtf8()}));
        }
        const RunReport released = engine.run(request(true));
        const CandidateVerdict *after = released.find(QStringLiteral("slide"), rowId);
        QVERIFY(after);
        QCOMPARE(after->verdict, Verdict::Absent); // control: the lock alone kept it SCHEDULED
    }

    // Issue 18 item 1: a restore query whose result is not a JSON object (the incident's
    // `{"jobId": "...", broken`) is never enqueued. The action is skipped with the reason — in
    // the report, its JSON and the console's action detail (all read resultDetail) — and
    // nothing is written: no job in Redis, the row still PROCESSING with its updatedAt, no
    // requeue counted. Through the old code the broken payload was enqueued and the row QUEUED.
    void corruptRestorePayloadIsNeverEnqueued_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("problem");
        QTest::newRow("truncated JSON")
            << QStringLiteral("SELECT '{\"jobId\": \"' || id || '\", broken' FROM \"VideoJob\" "
                              "WHERE id = :jobId")
            << QStringLiteral("is not valid JSON");
        QTest::newRow("JSON, not an object")
            << QStringLiteral(
                   "SELECT json_build_array(id)::text FROM \"VideoJob\" WHERE id = :jobId")
            << QStringLiteral("is JSON but not an object");
    }
    void corruptRestorePayloadIsNeverEnqueued()
    {
        QFETCH(QString, query);
        QFETCH(QString, problem);
        const QJsonObject row =
            onlyRow(QStringLiteral("video"), QStringLiteral("restorable-compose-no-queue-entry"));
        const QString rowId = str(row, "id");
        const QJsonObject to = row.value(QStringLiteral("requeueTo")).toObject();
        const QByteArray jobKey =
            QStringLiteral("bull:%1:%2").arg(str(to, "queue"), str(to, "bullJobId")).toUtf8();
        const QString rowBefore =
            sql(m_env,
                QStringLiteral("SELECT status || ' ' || \"updatedAt\"::text FROM \"VideoJob\" "
                               "WHERE id = ?"),
                {rowId})
                .value(0)
                .value(0)
                .toString();
        QVERIFY2(rowBefore.startsWith(QLatin1String("PROCESSING ")), qPrintable(rowBefore));

        ReclaimConfig config = configFor(QStringLiteral("video"));
        QVERIFY(config.domains.first().restore);
        config.domains.first().restore->query = query;
        Engine engine(config);
        const RunReport report = engine.run(request());
        QCOMPARE(report.outcome, RunReport::Outcome::Completed);
        const Action *a = findAction(report, QStringLiteral("video/") + rowId);
        QVERIFY(a);
        QCOMPARE(a->kind, ActionKind::Requeue);
        QCOMPARE(a->result, ActionResult::Error);
        QVERIFY2(
            a->resultDetail.startsWith(QStringLiteral("not enqueued: the restore query of "
                                                      "video returned a payload for %1 that %2")
                                           .arg(rowId, problem)),
            qPrintable(a->resultDetail));
        // The same reason in the JSON report.
        bool inJson = false;
        for (const QJsonValue &v : report.toJson().value(QStringLiteral("actions")).toArray())
            inJson = inJson || (str(v.toObject(), "id") == a->id &&
                                str(v.toObject(), "result") == QLatin1String("error") &&
                                str(v.toObject(), "resultDetail") == a->resultDetail);
        QVERIFY(inJson);

        // Nothing enqueued: no job hash under the id a requeue would use, in no list.
        auto conn = redis(m_env);
        auto exists = conn.command({QByteArrayLiteral("EXISTS"), jobKey});
        QVERIFY(exists);
        QCOMPARE(exists->integer, 0);
        auto waiting = conn.command({QByteArrayLiteral("LPOS"),
                                     QStringLiteral("bull:%1:wait").arg(str(to, "queue")).toUtf8(),
                                     str(to, "bullJobId").toUtf8()});
        QVERIFY(waiting);
        QCOMPARE(waiting->type, RedisValue::Type::Nil);
        // Nothing written: the row is as it was (not QUEUED), no requeue counted against it.
        const QString rowAfter =
            sql(m_env,
                QStringLiteral("SELECT status || ' ' || \"updatedAt\"::text FROM \"VideoJob\" "
                               "WHERE id = ?"),
                {rowId})
                .value(0)
                .value(0)
                .toString();
        QCOMPARE(rowAfter, rowBefore);
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.requeue WHERE row_id = ?"),
                     {rowId})
                     .value(0)
                     .value(0)
                     .toInt(),
                 0);
    }

    // #30: the restore query run once over a set of ids answers, id by id, what it answers run
    // row by row: a payload, nothing (no such row, a NULL), or a payload that is not JSON (only
    // that row is then skipped by the planner). A query that only works with a bound parameter
    // (a uuid column compared with :jobId) makes the set statement fail; the store then asks
    // row by row, and the answers are still the same.
    void restoreInSetsAnswersAsRowByRow_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<bool>("uuids");
        QTest::newRow("payloads, one of them not JSON")
            << QStringLiteral("SELECT CASE WHEN id = (SELECT min(id) FROM \"VideoJob\") THEN "
                              "'{\"jobId\": broken' WHEN status = 'COMPLETED' THEN NULL ELSE "
                              "json_build_object('jobId', id)::text END FROM \"VideoJob\" WHERE "
                              "id = :jobId;")
            << false;
        QTest::newRow("a uuid column: row by row")
            << QStringLiteral("SELECT payload FROM reclaim_test_uuid_jobs WHERE id = :jobId")
            << true;
    }
    void restoreInSetsAnswersAsRowByRow()
    {
        QFETCH(QString, query);
        QFETCH(bool, uuids);
        QStringList ids;
        if (uuids) {
            sql(m_env, QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim_test_uuid_jobs (id uuid "
                                      "PRIMARY KEY, payload text)"));
            sql(m_env, QStringLiteral("TRUNCATE reclaim_test_uuid_jobs"));
            for (int i = 0; i < 5; ++i) {
                const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
                sql(m_env, QStringLiteral("INSERT INTO reclaim_test_uuid_jobs VALUES (?::uuid, ?)"),
                    {id, QStringLiteral("{\"n\": %1}").arg(i)});
                ids << id;
            }
            ids << QUuid::createUuid().toString(QUuid::WithoutBraces); // no such row
        } else {
            for (const QList<QVariant> &r :
                 sql(m_env, QStringLiteral("SELECT id FROM \"VideoJob\" ORDER BY id")))
                ids << r.value(0).toString();
            ids << QStringLiteral("no-such-row");
        }
        QVERIFY(ids.size() >= 4);
        ReclaimConfig config = configFor(QStringLiteral("video"));
        QVERIFY(config.domains.first().restore);
        RestoreRule rule = *config.domains.first().restore;
        rule.query = query;
        auto store = PgJobStore::open(config, true);
        QVERIFY2(store, store ? "" : qPrintable(store.error().message));
        const QHash<QString, RestoredInput> set =
            (*store)->restorePayloadsOf(config.domains.first(), rule, ids);
        QCOMPARE(set.size(), ids.size());
        int payloads = 0;
        int nothing = 0;
        for (const QString &id : ids) {
            const auto one = (*store)->restorePayload(config.domains.first(), rule, id);
            QVERIFY2(one, one ? "" : qPrintable(one.error().message));
            const RestoredInput &fromSet = set.value(id);
            QVERIFY2(!fromSet.error,
                     qPrintable(id + QStringLiteral(": ") +
                                (fromSet.error ? fromSet.error->message : QString())));
            QCOMPARE(fromSet.payload, *one);
            (one->has_value() ? payloads : nothing) += 1;
        }
        QVERIFY(payloads >= 3); // the comparison saw payloads and absences both
        QVERIFY(nothing >= 1);
        if (uuids)
            sql(m_env, QStringLiteral("DROP TABLE reclaim_test_uuid_jobs"));
    }

    // Issue 20: job tables in two schemas of their own and their parents in a third, while the
    // session's search_path points at a fourth schema holding look-alike tables. Every statement
    // names the configured schema (each part quoted on its own), so the orphans of both domains
    // are failed and their parents cleaned up, the look-alikes are untouched, and Reclaim's own
    // tables are created in `reclaim`, not wherever search_path points.
    void tablesInSchemasOfTheirOwn()
    {
        const QString table = QStringLiteral(
            "(id text PRIMARY KEY, status text NOT NULL, \"updatedAt\" timestamp(3) NOT NULL, "
            "error text, \"projectId\" text)");
        const QString rows = QStringLiteral(
            "(id, status, \"updatedAt\", \"projectId\") VALUES "
            "('%1_orphan', 'PROCESSING', now() AT TIME ZONE 'UTC' - interval '2 hours', '%2'), "
            "('%1_fresh', 'PROCESSING', now() AT TIME ZONE 'UTC', '%2')");
        const QString projects =
            QStringLiteral("(id text PRIMARY KEY, status text NOT NULL, \"exportStatus\" text)");
        const QString projectRows = QStringLiteral(
            "VALUES ('p_render', 'PROCESSING', 'PROCESSING'), ('p_export', 'PROCESSING', "
            "'PROCESSING')");
        for (const QString &statement : {
                 QStringLiteral("DROP SCHEMA IF EXISTS reclaim CASCADE"),
                 QStringLiteral("CREATE SCHEMA acme_render"),
                 QStringLiteral("CREATE SCHEMA acme_export"),
                 QStringLiteral("CREATE SCHEMA acme_app"),
                 QStringLiteral("CREATE SCHEMA acme_decoy"),
                 QStringLiteral("CREATE TABLE acme_render.jobs ") + table,
                 QStringLiteral("CREATE TABLE acme_export.jobs ") + table,
                 QStringLiteral("CREATE TABLE acme_decoy.jobs ") + table,
                 QStringLiteral("CREATE TABLE acme_app.projects ") + projects,
                 QStringLiteral("CREATE TABLE acme_decoy.projects ") + projects,
                 QStringLiteral("INSERT INTO acme_render.jobs ") +
                     rows.arg(QStringLiteral("r"), QStringLiteral("p_render")),
                 QStringLiteral("INSERT INTO acme_export.jobs ") +
                     rows.arg(QStringLiteral("e"), QStringLiteral("p_export")),
                 QStringLiteral("INSERT INTO acme_decoy.jobs ") +
                     rows.arg(QStringLiteral("r"), QStringLiteral("p_render")),
                 QStringLiteral("INSERT INTO acme_decoy.jobs ") +
                     rows.arg(QStringLiteral("e"), QStringLiteral("p_export")),
                 QStringLiteral("INSERT INTO acme_app.projects ") + projectRows,
                 QStringLiteral("INSERT INTO acme_decoy.projects ") + projectRows,
             })
            sql(m_env, statement);
        QVERIFY(!QTest::currentTestFailed());

        auto domain = [](const char *name, const char *schema, const char *parentColumn) {
            return QJsonObject{
                {QStringLiteral("name"), QLatin1String(name)},
                {QStringLiteral("table"), QStringLiteral("%1.jobs").arg(QLatin1String(schema))},
                {QStringLiteral("columns"),
                 QJsonObject{{QStringLiteral("error"), QStringLiteral("error")}}},
                {QStringLiteral("thresholdSeconds"), 600},
                {QStringLiteral("queues"),
                 QJsonArray{QStringLiteral("acme-%1").arg(QLatin1String(name))}},
                {QStringLiteral("jobIdTemplate"),
                 QStringLiteral("%1-{id}").arg(QLatin1String(name))},
                {QStringLiteral("parents"),
                 QJsonArray{QJsonObject{
                     {QStringLiteral("table"), QStringLiteral("acme_app.projects")},
                     {QStringLiteral("foreignKey"), QStringLiteral("projectId")},
                     {QStringLiteral("column"), QLatin1String(parentColumn)},
                     {QStringLiteral("inProgress"), QJsonArray{QStringLiteral("PROCESSING")}},
                     {QStringLiteral("failedValue"), QStringLiteral("FAILED")}}}}};
        };
        QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(sample.readAll()).object();
        root.insert(QStringLiteral("domains"),
                    QJsonArray{domain("render", "acme_render", "status"),
                               domain("export", "acme_export", "exportStatus")});
        QUrl pgUrl(m_env.pgUrl);
        pgUrl.setQuery(QStringLiteral("options=-csearch_path%3Dacme_decoy"));
        QProcessEnvironment env = m_env.processEnvironment();
        env.insert(QStringLiteral("RECLAIM_PG_URL"), pgUrl.toString(QUrl::FullyEncoded));
        auto config =
            ConfigLoader::loadJson(QJsonDocument(root).toJson(), QStringLiteral("acme.json"), env);
        QVERIFY2(config, config ? "" : qPrintable(config.error().toString()));
        QCOMPARE(config->domains.at(0).table, QStringLiteral("acme_render.jobs"));

        // The app's queues exist, empty, as its BullMQ Queue left them when it opened them (a
        // queue with no trace at all would hold its domain: test_once, test_recoveryrun).
        openAppQueues(m_env, *config);

        Engine engine(*config);
        const RunReport report = engine.run(request());
        QVERIFY2(report.outcome == RunReport::Outcome::Completed, qPrintable(report.outcomeDetail));
        for (const DomainReport &d : report.domains)
            QVERIFY2(!d.candidateError, qPrintable(d.candidateError.value_or(QString())));
        QCOMPARE(report.actions.size(), 2);
        for (const Action &a : report.actions) {
            QVERIFY2(a.kind == ActionKind::Fail && a.result == ActionResult::Applied,
                     qPrintable(a.id + QLatin1Char(' ') + actionResultName(a.result) +
                                QLatin1Char(' ') + a.resultDetail));
            QCOMPARE(a.parent.rows, 1);
            QCOMPARE(a.parent.table, QStringLiteral("acme_app.projects"));
        }
        QVERIFY(findAction(report, QStringLiteral("render/r_orphan")));
        QVERIFY(findAction(report, QStringLiteral("export/e_orphan")));

        // Finding a job by id reads the configured schema's table too, not the search_path's.
        QString storeError;
        const QList<JobExplanation> found =
            engine.explainJob(QStringLiteral("r_fresh"), &storeError);
        QVERIFY2(storeError.isEmpty(), qPrintable(storeError));
        QCOMPARE(found.size(), 1);
        QVERIFY2(found.first().error.isEmpty(), qPrintable(found.first().error));
        QCOMPARE(found.first().domain, QStringLiteral("render"));
        QVERIFY(found.first().lookup);
        QCOMPARE(found.first().lookup->candidate.status, QStringLiteral("PROCESSING"));

        auto values = [&](const QString &statement) {
            QStringList out;
            for (const QVariantList &r : sql(m_env, statement))
                out << r.value(0).toString();
            return out;
        };
        QCOMPARE(
            values(QStringLiteral("SELECT id || '=' || status FROM acme_render.jobs ORDER BY "
                                  "id")),
            (QStringList{QStringLiteral("r_fresh=PROCESSING"), QStringLiteral("r_orphan=FAILED")}));
        QCOMPARE(
            values(QStringLiteral("SELECT id || '=' || status FROM acme_export.jobs ORDER BY "
                                  "id")),
            (QStringList{QStringLiteral("e_fresh=PROCESSING"), QStringLiteral("e_orphan=FAILED")}));
        QCOMPARE(values(QStringLiteral("SELECT id || '=' || status || '/' || \"exportStatus\" FROM "
                                       "acme_app.projects ORDER BY id")),
                 (QStringList{QStringLiteral("p_export=PROCESSING/FAILED"),
                              QStringLiteral("p_render=FAILED/PROCESSING")}));
        // The look-alikes on the search_path are untouched.
        QCOMPARE(values(QStringLiteral("SELECT count(*) FROM acme_decoy.jobs WHERE status = "
                                       "'PROCESSING'")),
                 QStringList{QStringLiteral("4")});
        QCOMPARE(values(QStringLiteral("SELECT count(*) FROM acme_decoy.projects WHERE status = "
                                       "'PROCESSING' AND \"exportStatus\" = 'PROCESSING'")),
                 QStringList{QStringLiteral("2")});
        // Reclaim's own tables are in `reclaim`, none in the search_path's schema.
        QCOMPARE(values(QStringLiteral("SELECT table_name FROM information_schema.tables WHERE "
                                       "table_schema = 'acme_decoy' ORDER BY 1")),
                 (QStringList{QStringLiteral("jobs"), QStringLiteral("projects")}));
        QCOMPARE(values(QStringLiteral("SELECT table_name FROM information_schema.tables WHERE "
                                       "table_schema = 'reclaim' ORDER BY 1")),
                 (QStringList{QStringLiteral("audit"), QStringLiteral("fence"),
                              QStringLiteral("held_action"), QStringLiteral("held_event"),
                              QStringLiteral("rejection"), QStringLiteral("requeue")}));
        QCOMPARE(
            values(QStringLiteral("SELECT row_id || '=' || result FROM reclaim.audit WHERE "
                                  "domain IN ('render', 'export') ORDER BY row_id")),
            (QStringList{QStringLiteral("e_orphan=applied"), QStringLiteral("r_orphan=applied")}));
    }

    // #19: a legacy-id job waiting in a real bullmq queue whose `data` was corrupted by hand.
    // The scan cannot read whose job it is, so every candidate it still had to find is UNKNOWN
    // — not ABSENT — the unreadable job is named in the report, and a writing run writes
    // nothing for them.
    void aScannedJobWhoseDataCannotBeReadIsUnknown()
    {
        const QJsonObject row =
            onlyRow(QStringLiteral("slide"), QStringLiteral("legacy-id-waiting"));
        const QString rowId = str(row, "id");
        ReclaimConfig config = configFor(QStringLiteral("slide"));
        Engine engine(config);
        const RunReport before = engine.run(request(true));
        const CandidateVerdict *found = before.find(QStringLiteral("slide"), rowId);
        QVERIFY2(found, "the legacy row is not a candidate");
        QCOMPARE(found->verdict, Verdict::Scheduled); // control: readable, it is found by scan
        const Sighting &s = found->evidence.last();
        QCOMPARE(s.how, FoundBy::Scan);
        const QByteArray jobKey = QStringLiteral("bull:%1:%2").arg(s.queue, s.jobId).toUtf8();
        const QByteArray goodData = s.data;
        auto conn = redis(m_env);
        QVERIFY(conn.command({QByteArrayLiteral("HSET"), jobKey, QByteArrayLiteral("data"),
                              QByteArrayLiteral("{\"jobId\": \"") + rowId.toUtf8() +
                                  QByteArrayLiteral("\", broken")}));
        const auto rowsBefore = databaseRows(m_env);

        const RunReport dry = engine.run(request(true));
        const CandidateVerdict *v = dry.find(QStringLiteral("slide"), rowId);
        QVERIFY(v);
        QCOMPARE(v->verdict, Verdict::Unknown);
        QVERIFY2(v->unknownReason.contains(QStringLiteral("scan met 1 unreadable job")),
                 qPrintable(v->unknownReason));
        QVERIFY2(v->unknownReason.contains(s.jobId), qPrintable(v->unknownReason));
        const QJsonObject json = dry.toJson();
        const QJsonObject scan = json.value(QStringLiteral("domains"))
                                     .toArray()
                                     .first()
                                     .toObject()
                                     .value(QStringLiteral("scan"))
                                     .toObject();
        QCOMPARE(scan.value(QStringLiteral("unreadable")).toArray().size(), 1);
        QVERIFY(scan.value(QStringLiteral("unreadable"))
                    .toArray()
                    .first()
                    .toString()
                    .endsWith(QLatin1Char('/') + s.jobId));
        for (const DomainReport &d : dry.domains)
            for (const CandidateVerdict &c : d.candidates)
                QVERIFY2(c.verdict != Verdict::Absent || !c.scanned,
                         qPrintable(c.candidate.id + QStringLiteral(" ABSENT after the scan")));

        const RunReport applied = engine.run(request(false));
        QCOMPARE(applied.outcome, RunReport::Outcome::Completed);
        QVERIFY(!findAction(applied, QStringLiteral("slide/") + rowId));
        QCOMPARE(rowFields(databaseRows(m_env), QStringLiteral("SlideJob"), rowId),
                 rowFields(rowsBefore, QStringLiteral("SlideJob"), rowId));
        QVERIFY(
            conn.command({QByteArrayLiteral("HSET"), jobKey, QByteArrayLiteral("data"), goodData}));
    }
};

QTEST_GUILESS_MAIN(TestRealWorld)
#include "test_realworld.moc"
