// Issue 30 against the real servers: a mass recovery runs in batches (one statement records the
// attempts, one pipeline enqueues, one transaction writes the rows), and every action of a batch
// still gets its own, true result when something goes wrong in the middle of it — a row a worker
// moved on, a fence raised halfway, Redis lost halfway, PostgreSQL failing after the enqueues, a
// restore query with bad JSON for one row; and (#31 item 2) a COMMIT whose answer is lost, which
// is read again and told as it is — never as "failed" when it may have committed.
#include "bullmq/bullmqscripts.h"
#include "commitproxy.h"
#include "fencing/redislock.h"
#include "postgres/pgjobstore.h"
#include "recovery/actionexecutor.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTest>
#include <QThread>
#include <functional>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QString kQueue = QStringLiteral("video-generation");

QString rowId(int i)
{
    return QStringLiteral("bj-%1").arg(i, 5, 10, QLatin1Char('0'));
}

QByteArray jobKey(int i)
{
    return QStringLiteral("bull:%1:video-compose-%2").arg(kQueue, rowId(i)).toUtf8();
}

// A QueueWriter over the real one, with hooks around each batch's enqueues; `split` sends a
// batch as two halves with `between` run in the middle.
class BatchHooks final : public QueueWriter
{
public:
    explicit BatchHooks(QueueWriter &inner) : m_inner(inner) {}
    std::function<void()> before, between, after;
    bool split = false;
    int batches = 0;

    Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) override
    {
        return enqueueMany({request}).first();
    }
    QList<Expected<EnqueueOutcome, RedisError>>
    enqueueMany(const QList<EnqueueRequest> &requests) override
    {
        ++batches;
        if (before)
            before();
        QList<Expected<EnqueueOutcome, RedisError>> out;
        if (split && requests.size() > 1) {
            const qsizetype half = requests.size() / 2;
            out = m_inner.enqueueMany(requests.mid(0, half));
            if (between)
                between();
            out << m_inner.enqueueMany(requests.mid(half));
        } else {
            out = m_inner.enqueueMany(requests);
        }
        if (after)
            after();
        return out;
    }

private:
    QueueWriter &m_inner;
};

// A QueueWriter over the real one that lets each batch's scripts go out ahead, as a run does
// (QueueWriter::startEnqueue), with hooks before they are sent, once they are sent, and before
// their answers are read.
class SendAheadHooks final : public QueueWriter
{
public:
    explicit SendAheadHooks(QueueWriter &inner) : m_inner(inner) {}
    std::function<void(int batch, const QList<EnqueueRequest> &)> beforeSend, sent, answering;
    int batches = 0;

    Expected<EnqueueOutcome, RedisError> enqueue(const EnqueueRequest &request) override
    {
        return m_inner.enqueue(request);
    }
    QList<Expected<EnqueueOutcome, RedisError>>
    enqueueMany(const QList<EnqueueRequest> &requests) override
    {
        return m_inner.enqueueMany(requests);
    }
    std::unique_ptr<PendingEnqueue> startEnqueue(const QList<EnqueueRequest> &requests) override
    {
        const int batch = ++batches;
        if (beforeSend)
            beforeSend(batch, requests);
        auto pending = m_inner.startEnqueue(requests);
        if (sent)
            sent(batch, requests);
        return std::make_unique<Watched>(std::move(pending), [this, batch, requests] {
            if (answering)
                answering(batch, requests);
        });
    }

private:
    class Watched final : public PendingEnqueue
    {
    public:
        Watched(std::unique_ptr<PendingEnqueue> inner, std::function<void()> before)
            : m_inner(std::move(inner)), m_before(std::move(before))
        {}
        QList<Expected<EnqueueOutcome, RedisError>> finish() override
        {
            m_before();
            return m_inner->finish();
        }

    private:
        std::unique_ptr<PendingEnqueue> m_inner;
        std::function<void()> m_before;
    };
    QueueWriter &m_inner;
};

} // namespace

class TestBatches : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    ReclaimConfig m_config;

    // `n` orphaned COMPOSE rows (QUEUED, two hours old, oldest first, each with its video and a
    // track), none of their jobs in Redis: the day after a data loss.
    void seedOrphans(int n, int firstShared = 0)
    {
        sql(m_env,
            QStringLiteral(
                "INSERT INTO \"Video\" (id, title, status) SELECT 'v-' || i, 'title ' || i, "
                "'PROCESSING' FROM generate_series(1, ?) AS i"),
            {n});
        sql(m_env,
            QStringLiteral("INSERT INTO \"Track\" (id, \"videoId\", position, kind, "
                           "\"assetUrl\", \"durationMs\") SELECT 't-' || i, 'v-' || i, 0, "
                           "'VIDEO', 's3://a/' || i, 1000 FROM generate_series(1, ?) AS i"),
            {n});
        // Rows from `firstShared` on (when set) share the video v-1: one parent, many children.
        sql(m_env,
            QStringLiteral(
                "INSERT INTO \"VideoJob\" (id, \"videoId\", type, status, \"updatedAt\") "
                "SELECT 'bj-' || lpad(i::text, 5, '0'), CASE WHEN ? > 0 AND i >= ? "
                "THEN 'v-1' ELSE 'v-' || i END, 'COMPOSE', 'QUEUED', "
                "(now() AT TIME ZONE 'UTC') - interval '2 hours' - make_interval(secs "
                "=> ? - i) FROM generate_series(1, ?) AS i"),
            {firstShared, firstShared, n, n});
    }

    RunReport run()
    {
        RedisAdapters redis(m_config);
        return runHooked(redis.queue, redis);
    }

    RunReport runHooked(QueueWriter &hooks, RedisAdapters &redis)
    {
        auto store = PgJobStore::open(m_config, false);
        if (!store)
            qFatal("store: %s", qPrintable(store.error().message));
        RunRequest request;
        request.trigger = QStringLiteral("batches");
        request.actor =
            Actor{QStringLiteral("test"), QStringLiteral("batches"), QStringLiteral("test"), {}};
        return RecoveryRun(m_config, store->get(), {}, redis.queue, hooks, redis.lock).run(request);
    }

    bool jobExists(int i)
    {
        auto r = redis(m_env).command({QByteArrayLiteral("EXISTS"), jobKey(i)});
        return r && r->integer == 1;
    }

    // The row as Reclaim left it: status, progress, and whether its updatedAt moved.
    QVariantList rowState(int i)
    {
        return sql(m_env,
                   QStringLiteral("SELECT status, progress, \"updatedAt\" > (now() AT TIME ZONE "
                                  "'UTC') - interval '1 hour' FROM \"VideoJob\" WHERE id = ?"),
                   {rowId(i)})
            .value(0);
    }

    QStringList auditResults()
    {
        QStringList out;
        for (const QVariantList &row :
             sql(m_env, QStringLiteral("SELECT row_id, result FROM reclaim.audit WHERE "
                                       "actor_host = 'batches' ORDER BY row_id")))
            out << row.at(0).toString() + QLatin1Char('=') + row.at(1).toString();
        return out;
    }

    // Three orphans recovered with PostgreSQL behind a relay armed `how` once the batch's
    // enqueues are done; true when the relay listened and swallowed a COMMIT's answer.
    bool runWithTheCommitCut(CommitProxy::Arm how, RunReport &report)
    {
        seedOrphans(3);
        CommitProxy proxy(m_config.postgres.host, m_config.postgres.port);
        if (proxy.port() <= 0)
            return false;
        m_config.postgres.port = proxy.port();
        m_config.run.postgresTimeout = std::chrono::milliseconds(1000);
        RedisAdapters redis(m_config);
        BatchHooks hooks(redis.queue);
        hooks.after = [&] {
            proxy.arm(how);
        };
        report = runHooked(hooks, redis);
        return proxy.swallowed();
    }

    // The actions of the report by row, in the report's order.
    static QList<const Action *> actionsOf(const RunReport &r)
    {
        QList<const Action *> out;
        for (const Action &a : r.actions)
            out << &a;
        return out;
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
        m_config = sampleConfig(m_env);
        const DomainConfig video = *m_config.domain(QStringLiteral("video"));
        m_config.domains = {video};
        m_config.run.guard.maxActions = 100000; // the guard's decision is not under test here
        m_config.run.guard.maxAbsentShare = 1.0;
        openAppQueues(m_env, m_config);
    }

    // More than one batch (the second a partial one): every orphan waiting in bullmq with exactly
    // its rebuilt data, every row written once, one audit row per action, a handful of round
    // trips per batch.
    void manyBatchesRecoverEveryRowExactlyOnce()
    {
        const int n = static_cast<int>(kExecuteBatch) * 6 / 5;
        seedOrphans(n);
        const RunReport r = run();
        QCOMPARE(r.actions.size(), n);
        QCOMPARE(r.count(ActionResult::Applied), n);
        auto conn = redis(m_env);
        const auto waiting = conn.command(
            {QByteArrayLiteral("LLEN"), QStringLiteral("bull:%1:wait").arg(kQueue).toUtf8()});
        QVERIFY(waiting);
        QCOMPARE(waiting->integer, n);
        for (int i : {1, n / 2, n}) {
            const auto data =
                conn.command({QByteArrayLiteral("HGET"), jobKey(i), QByteArrayLiteral("data")});
            QVERIFY(data && !data->isNil());
            const QJsonObject o = QJsonDocument::fromJson(data->toBytes().value_or("")).object();
            QCOMPARE(o.value(QStringLiteral("jobId")).toString(), rowId(i));
            QCOMPARE(o.value(QStringLiteral("title")).toString(),
                     QStringLiteral("title %1").arg(i));
        }
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*) FROM \"VideoJob\" WHERE status = "
                                           "'QUEUED' AND \"updatedAt\" > (now() AT TIME ZONE "
                                           "'UTC') - interval '1 hour'"))
                     .value(0)
                     .value(0)
                     .toInt(),
                 n);
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*), count(DISTINCT row_id) FROM "
                                           "reclaim.audit WHERE result = 'applied'"))
                     .value(0),
                 (QVariantList{n, n}));
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.requeue"))
                     .value(0)
                     .value(0)
                     .toInt(),
                 n);
        qInfo("%d actions: %lld Redis round trips in the whole run", n, r.redisRoundTrips);
        // Lookups, scans and writes together: far below one round trip per action.
        QVERIFY2(r.redisRoundTrips < n / 10, qPrintable(QString::number(r.redisRoundTrips)));
    }

    // The overlap (#30): a batch's scripts go out before the previous batch's rows are written,
    // Redis runs them while PostgreSQL writes, and their answers are read after. Every
    // guarantee stays: both batches recovered, one audit row each.
    void aBatchsEnqueuesRunWhileThePreviousBatchIsWritten()
    {
        const int n = static_cast<int>(kExecuteBatch) + 10;
        seedOrphans(n);
        RedisAdapters adapters(m_config);
        SendAheadHooks hooks(adapters.queue);
        const auto written = [&] {
            return sql(m_env, QStringLiteral("SELECT count(*) FROM \"VideoJob\" WHERE "
                                             "\"updatedAt\" > (now() AT TIME ZONE 'UTC') - "
                                             "interval '1 hour'"))
                .value(0)
                .value(0)
                .toInt();
        };
        int writtenWhenSent = -1;
        int writtenWhenAnswered = -1;
        bool ranBeforeAnswersRead = false;
        hooks.sent = [&](int batch, const QList<EnqueueRequest> &) {
            if (batch == 2)
                writtenWhenSent = written();
        };
        hooks.answering = [&](int batch, const QList<EnqueueRequest> &requests) {
            if (batch != 2)
                return;
            writtenWhenAnswered = written();
            // Its jobs are in their queue before this side reads a single answer.
            QDeadlineTimer deadline(10000);
            auto conn = redis(m_env);
            while (!ranBeforeAnswersRead && !deadline.hasExpired()) {
                const auto r = conn.command(
                    {QByteArrayLiteral("EXISTS"),
                     QStringLiteral("bull:%1:%2").arg(kQueue, requests.last().job.jobId).toUtf8()});
                ranBeforeAnswersRead = r && r->integer == 1;
                if (!ranBeforeAnswersRead)
                    QThread::msleep(5);
            }
        };
        const RunReport r = runHooked(hooks, adapters);
        QCOMPARE(hooks.batches, 2);
        QCOMPARE(writtenWhenSent, 0); // the first batch's rows were not written yet
        QVERIFY(ranBeforeAnswersRead);
        QCOMPARE(writtenWhenAnswered, static_cast<int>(kExecuteBatch)); // written in between
        QCOMPARE(r.count(ActionResult::Applied), n);
        QCOMPARE(written(), n);
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*), count(DISTINCT row_id) FROM "
                                           "reclaim.audit WHERE result = 'applied'"))
                     .value(0),
                 (QVariantList{n, n}));
    }

    // Redis goes silent once a batch's scripts are on their way, while the previous batch's rows
    // are written: that batch is written (its jobs were enqueued and answered), and every action
    // of the silent one is "not known" — never "not enqueued" — with no row of it written.
    void redisSilentWhileABatchIsInFlightLeavesOnlyThatBatchUnknown()
    {
        const int n = static_cast<int>(kExecuteBatch) + 10;
        seedOrphans(n);
        m_config.run.redisTimeout = std::chrono::milliseconds(1000);
        RedisAdapters adapters(m_config);
        SendAheadHooks hooks(adapters.queue);
        QStringList silent;
        hooks.beforeSend = [&](int batch, const QList<EnqueueRequest> &requests) {
            if (batch != 2)
                return;
            for (const EnqueueRequest &e : requests)
                silent << e.job.jobId.mid(e.job.jobId.indexOf(QLatin1String("bj-")));
            // Writes (scripts among them) queue up unanswered for 2 s, reads go on: the
            // queues' stamps are read, the scripts sent, and ours wait 1 s for an answer.
            QVERIFY(redis(m_env).command({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("PAUSE"),
                                          QByteArrayLiteral("2000"), QByteArrayLiteral("WRITE")}));
        };
        const RunReport r = runHooked(hooks, adapters);
        QCOMPARE(hooks.batches, 2);
        QCOMPARE(silent.size(), 10);
        QCOMPARE(r.actions.size(), n);
        for (const Action &a : r.actions) {
            const int row = a.rowId.mid(3).toInt();
            if (silent.contains(a.rowId)) {
                QCOMPARE(a.result, ActionResult::Unknown);
                QVERIFY2(a.resultDetail.contains(QLatin1String("not known whether")),
                         qPrintable(a.resultDetail));
                QCOMPARE(rowState(row).value(2).toBool(), false);
            } else {
                QVERIFY2(
                    a.result == ActionResult::Applied,
                    qPrintable(actionResultName(a.result) + QLatin1Char(' ') + a.resultDetail));
                QCOMPARE(rowState(row).value(2).toBool(), true);
            }
        }
        QCOMPARE(auditResults().filter(QStringLiteral("=applied")).size(), n - 10);
        QCOMPARE(auditResults().filter(QStringLiteral("=unknown")).size(), 10);
    }

    void aRowAWorkerMovedIsTheOnlyStaleOne()
    {
        seedOrphans(8);
        RedisAdapters redis(m_config);
        BatchHooks hooks(redis.queue);
        hooks.after = [&] {
            sql(m_env,
                QStringLiteral("UPDATE \"VideoJob\" SET progress = 40, \"updatedAt\" = now() "
                               "AT TIME ZONE 'UTC' WHERE id = ?"),
                {rowId(3)});
        };
        const RunReport r = runHooked(hooks, redis);
        QCOMPARE(hooks.batches, 1);
        for (const Action *a : actionsOf(r))
            QCOMPARE(a->result, a->rowId == rowId(3) ? ActionResult::Stale : ActionResult::Applied);
        QCOMPARE(rowState(3).value(1).toInt(), 40); // the worker's write stands
        for (int i = 1; i <= 8; ++i)
            QVERIFY(jobExists(i));
        QCOMPARE(auditResults().filter(QStringLiteral("=stale")),
                 QStringList{rowId(3) + QStringLiteral("=stale")});
        QCOMPARE(auditResults().filter(QStringLiteral("=applied")).size(), 7);
    }

    void aFenceRaisedInRedisHalfwayWritesNothingAfterIt()
    {
        seedOrphans(8);
        RedisAdapters redis(m_config);
        BatchHooks hooks(redis.queue);
        hooks.split = true;
        hooks.between = [&] {
            // A newer run took a generation: every script after this point refuses.
            const auto raised = ::redis(m_env).command(
                {QByteArrayLiteral("INCR"), RedisLock::generationKeyFor(m_config.run.lockKey)});
            QVERIFY(raised);
        };
        const RunReport r = runHooked(hooks, redis);
        const auto actions = actionsOf(r);
        QCOMPARE(actions.size(), 8);
        for (qsizetype i = 0; i < actions.size(); ++i) {
            const int row = actions.at(i)->rowId.mid(3).toInt();
            if (i < 4) {
                QCOMPARE(actions.at(i)->result, ActionResult::Applied);
                QVERIFY(jobExists(row));
                QCOMPARE(rowState(row).value(2).toBool(), true);
            } else {
                QCOMPARE(actions.at(i)->result, ActionResult::Fenced);
                QVERIFY2(actions.at(i)->resultDetail.contains(QLatin1String("nothing enqueued")),
                         qPrintable(actions.at(i)->resultDetail));
                QVERIFY(!jobExists(row));
                QCOMPARE(rowState(row).value(2).toBool(), false); // untouched
            }
        }
    }

    void aFenceRaisedInPostgresAfterTheEnqueuesWritesNoRow()
    {
        seedOrphans(6);
        RedisAdapters redis(m_config);
        BatchHooks hooks(redis.queue);
        hooks.after = [&] {
            sql(m_env, QStringLiteral("UPDATE reclaim.fence SET generation = generation + 1"));
        };
        const RunReport r = runHooked(hooks, redis);
        QCOMPARE(r.count(ActionResult::Fenced), 6);
        for (int i = 1; i <= 6; ++i) {
            QCOMPARE(rowState(i).value(2).toBool(), false);
            QVERIFY(jobExists(i)); // enqueued before the fence rose: the audit says fenced
        }
        QCOMPARE(auditResults().filter(QStringLiteral("=fenced")).size(), 6);
    }

    // Redis closes the connection halfway through the pipeline (a protocol error on the 4th
    // job, larger than the server accepts): the jobs before it were enqueued and are written,
    // the 4th is refused, and those after it were sent but never answered — unknown, their rows
    // untouched, never read as "not enqueued" nor written.
    void redisLostHalfwayTellsEachActionWhatHappened()
    {
        seedOrphans(8);
        sql(m_env, QStringLiteral("UPDATE \"Video\" SET title = repeat('x', 1100000) WHERE id = "
                                  "'v-4'"));
        auto admin = redis(m_env);
        const auto limit = admin.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"),
                                          QByteArrayLiteral("proto-max-bulk-len")});
        QVERIFY(limit && limit->elements.size() == 2);
        const QByteArray before = limit->elements.at(1).toBytes().value_or("536870912");
        QVERIFY(
            admin.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("SET"),
                           QByteArrayLiteral("proto-max-bulk-len"), QByteArrayLiteral("1048576")}));
        const auto restore = qScopeGuard([&] {
            (void)redis(m_env).command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("SET"),
                                        QByteArrayLiteral("proto-max-bulk-len"), before});
        });
        // The script is loaded already, so the pipeline is not answered NOSCRIPT first.
        QVERIFY(admin.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"),
                               bullmq::scripts::enqueue().source()}));

        const RunReport r = run();
        const auto actions = actionsOf(r);
        QCOMPARE(actions.size(), 8);
        for (const Action *a : actions) {
            const int row = a->rowId.mid(3).toInt();
            if (row < 4) {
                // Enqueued. Their replies normally arrive before the server closes; on a loaded
                // machine the reset that follows can discard them unread, and then "unknown" is
                // the true answer — never "not enqueued".
                QVERIFY2(
                    a->result == ActionResult::Applied || a->result == ActionResult::Unknown,
                    qPrintable(actionResultName(a->result) + QLatin1Char(' ') + a->resultDetail));
                QVERIFY(jobExists(row));
            } else if (row == 4) {
                // Refused; as above, a reset on a loaded machine can discard the refusal unread.
                QVERIFY2(
                    a->result == ActionResult::EnqueueFailed || a->result == ActionResult::Unknown,
                    qPrintable(actionResultName(a->result) + QLatin1Char(' ') + a->resultDetail));
                QVERIFY(!jobExists(row));
                QCOMPARE(rowState(row).value(2).toBool(), false);
            } else {
                QCOMPARE(a->result, ActionResult::Unknown);
                QVERIFY2(a->resultDetail.contains(QLatin1String("not known whether")),
                         qPrintable(a->resultDetail));
                QVERIFY(!jobExists(row)); // this server dropped them; the client cannot know
                QCOMPARE(rowState(row).value(2).toBool(), false);
            }
        }
        QStringList expected;
        int refused = 0;
        for (const Action *a : actions) {
            const int i = a->rowId.mid(3).toInt();
            const bool wasRefused = a->result == ActionResult::EnqueueFailed;
            refused += wasRefused ? 1 : 0;
            expected << rowId(i) + (wasRefused ? QStringLiteral("=enqueue-failed")
                                               : QLatin1Char('=') + actionResultName(a->result));
        }
        expected.sort();
        QCOMPARE(auditResults(), expected);
        // The refused one gave its budget use back; the unknown ones keep theirs.
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.requeue"))
                     .value(0)
                     .value(0)
                     .toInt(),
                 8 - refused);
    }

    void postgresFailingAfterTheEnqueuesIsAuditedPerAction()
    {
        seedOrphans(6);
        RedisAdapters redis(m_config);
        BatchHooks hooks(redis.queue);
        hooks.after = [&] {
            sql(m_env, QStringLiteral(
                           "CREATE FUNCTION pg_temp_refuse() RETURNS trigger LANGUAGE plpgsql AS "
                           "$$BEGIN RAISE EXCEPTION 'refused by the test'; END$$"));
            sql(m_env, QStringLiteral("CREATE TRIGGER refuse BEFORE UPDATE ON \"VideoJob\" FOR "
                                      "EACH ROW EXECUTE FUNCTION pg_temp_refuse()"));
        };
        const RunReport r = runHooked(hooks, redis);
        QCOMPARE(r.count(ActionResult::Error), 6);
        for (const Action *a : actionsOf(r))
            QVERIFY2(a->resultDetail.contains(QLatin1String("enqueued, row write failed")) &&
                         a->resultDetail.contains(QLatin1String("refused by the test")),
                     qPrintable(a->resultDetail));
        for (int i = 1; i <= 6; ++i) {
            QVERIFY(jobExists(i));
            QCOMPARE(rowState(i).value(2).toBool(), false);
        }
        QCOMPARE(auditResults().filter(QStringLiteral("=error")).size(), 6);
        const auto detail = sql(m_env, QStringLiteral("SELECT detail FROM reclaim.audit WHERE "
                                                      "result = 'error' LIMIT 1"));
        QVERIFY(detail.value(0).value(0).toString().contains(QLatin1String("enqueued")));
        // Enqueued: every budget use stays.
        QCOMPARE(sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.requeue"))
                     .value(0)
                     .value(0)
                     .toInt(),
                 6);
    }

    void badJsonForOneRowSkipsOnlyThatRow()
    {
        seedOrphans(6);
        DomainConfig &video = m_config.domains[0];
        video.restore->query = QStringLiteral(
            "SELECT CASE WHEN j.id = 'bj-00005' THEN '{\"jobId\": ' ELSE json_build_object("
            "'jobId', j.id, 'title', v.title)::text END FROM \"VideoJob\" j JOIN \"Video\" v ON "
            "v.id = j.\"videoId\" WHERE j.id = :jobId");
        const RunReport r = run();
        for (const Action *a : actionsOf(r)) {
            if (a->rowId == rowId(5)) {
                QCOMPARE(a->result, ActionResult::Error);
                QVERIFY(!jobExists(5));
            } else {
                QCOMPARE(a->result, ActionResult::Applied);
            }
        }
        QCOMPARE(r.count(ActionResult::Applied), 5);
        QCOMPARE(rowState(5).value(2).toBool(), false);
    }

    // The server commits the batch, and its answer never arrives (the connection is lost with
    // the COMMIT in flight): the watchdog closes the connection, and a new one reads the audit
    // rows the transaction completed. Applied, each saying how it was learnt — not "row write
    // failed", which is what the run reported before.
    void aCommitWhoseAnswerIsLostIsReadAgain()
    {
        RunReport r;
        QVERIFY(runWithTheCommitCut(CommitProxy::Arm::SwallowCommitAnswer, r));
        QCOMPARE(r.actions.size(), 3);
        for (const Action *a : actionsOf(r)) {
            QVERIFY2(a->result == ActionResult::Applied,
                     qPrintable(actionResultName(a->result) + QLatin1Char(' ') + a->resultDetail));
            QVERIFY2(a->resultDetail.contains(QLatin1String("the write had committed")),
                     qPrintable(a->resultDetail));
        }
        for (int i = 1; i <= 3; ++i) {
            QVERIFY(jobExists(i));
            QCOMPARE(rowState(i).value(0).toString(), QStringLiteral("QUEUED"));
            QCOMPARE(rowState(i).value(2).toBool(), true);
        }
        QCOMPARE(auditResults().filter(QStringLiteral("=applied")).size(), 3);
    }

    // As above, and the server cannot be reached again either (the relay goes dark for every
    // connection after the COMMIT): what the transaction did cannot be read, so each action is
    // "unknown: the write may have committed" — never "row write failed" — and the rows did
    // commit, as the next run will read.
    void aCommitWhoseAnswerIsLostAndCannotBeReadAgainIsUnknown()
    {
        RunReport r;
        QVERIFY(runWithTheCommitCut(CommitProxy::Arm::SwallowCommitThenDark, r));
        QCOMPARE(r.actions.size(), 3);
        for (const Action *a : actionsOf(r)) {
            QVERIFY2(a->result == ActionResult::Unknown,
                     qPrintable(actionResultName(a->result) + QLatin1Char(' ') + a->resultDetail));
            QVERIFY2(a->resultDetail.contains(QLatin1String("the write may have committed")),
                     qPrintable(a->resultDetail));
            QVERIFY2(!a->resultDetail.contains(QLatin1String("failed:")) ||
                         a->resultDetail.contains(QLatin1String("reading its audit rows again")),
                     qPrintable(a->resultDetail));
        }
        // The truth, read past the relay: the transaction committed.
        for (int i = 1; i <= 3; ++i) {
            QVERIFY(jobExists(i));
            QCOMPARE(rowState(i).value(0).toString(), QStringLiteral("QUEUED"));
        }
        QCOMPARE(auditResults().filter(QStringLiteral("=applied")).size(), 3);
    }
};

QTEST_GUILESS_MAIN(TestBatches)
#include "test_batches.moc"
