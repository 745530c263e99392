// The batched probe (core/bullmq/lua/probe.lua through BullmqQueue::probe) against jobs the real
// bullmq wrote: one script call answers many ids of a queue, sharing one walk of a list's tail, and
// the answer must not depend on how the ids were batched — nor may one unreadable key turn its
// neighbours' answers into errors, or an error into "missing".
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QString kQueue = QStringLiteral("probe-batch");
const QString kOther = QStringLiteral("probe-other");
constexpr int kWaiting = 40; // more than the script's few-ids LPOS path takes

JobRef ref(const QString &queue, const QString &id)
{
    return JobRef{QStringLiteral("bull"), queue, id};
}

QString waitingId(int i)
{
    return QStringLiteral("pb-%1").arg(i); // pb-1 is the oldest: at the tail of the wait list
}

QStringList produce(const SandboxEnv &env, const QStringList &args)
{
    QStringList ids;
    const QByteArray out =
        runNode(env, QStringLiteral("producer.js"),
                args + QStringList{QStringLiteral("--data"), QStringLiteral("{\"jobId\":\"x\"}")});
    for (const QByteArray &line : out.split('\n'))
        if (!line.trimmed().isEmpty())
            ids << QJsonDocument::fromJson(line).object().value(QStringLiteral("id")).toString();
    return ids;
}

// "state" for a sighting, or "error: <message>" for a failed lookup.
QString answer(const Expected<Sighting, RedisError> &r)
{
    return r ? r->state : QStringLiteral("error: ") + r.error().describe();
}

} // namespace

class TestProbeBatch : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    ReclaimConfig m_config;
    QString m_delayedId;

    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs, int walkLimit = 10000,
                                                int perTrip = 1000, qint64 *trips = nullptr)
    {
        RunSettings settings = m_config.run;
        settings.listProbeLimit = walkLimit;
        settings.probeBatchSize = perTrip;
        RedisAdapters adapters(m_config.redis, settings);
        // The connection opened (its ROLE check is a round trip of its own) and the script
        // loaded before the count starts: `trips` are the probe's alone.
        if (trips)
            adapters.queue.probe({jobs.first()});
        const qint64 before = adapters.queue.roundTrips();
        auto results = adapters.queue.probe(jobs);
        if (trips)
            *trips = adapters.queue.roundTrips() - before;
        return results;
    }

    QList<JobRef> allWaiting() const
    {
        QList<JobRef> jobs;
        for (int i = 1; i <= kWaiting; ++i)
            jobs << ref(kQueue, waitingId(i));
        return jobs;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
        m_config = sampleConfig(m_env);
        const QStringList waiting = produce(
            m_env, {QStringLiteral("--queue"), kQueue, QStringLiteral("--id"), QStringLiteral("pb"),
                    QStringLiteral("--count"), QString::number(kWaiting)});
        QCOMPARE(waiting.size(), kWaiting);
        QCOMPARE(waiting.first(), waitingId(1));
        const QStringList delayed =
            produce(m_env, {QStringLiteral("--queue"), kQueue, QStringLiteral("--id"),
                            QStringLiteral("pb-delayed"), QStringLiteral("--delay"),
                            QStringLiteral("3600000")});
        QCOMPARE(delayed.size(), 1);
        m_delayedId = delayed.first();
        QCOMPARE(produce(m_env, {QStringLiteral("--queue"), kOther, QStringLiteral("--id"),
                                 QStringLiteral("po")})
                     .size(),
                 1);
    }

    // Many ids of one list share one walk; the answer is the one a lone LPOS gives.
    void batchSharesOneWalk()
    {
        QList<JobRef> jobs = allWaiting();
        jobs << ref(kQueue, m_delayedId) << ref(kQueue, QStringLiteral("pb-nosuchjob"))
             << ref(kQueue, waitingId(7)); // the same id twice in one batch
        const auto results = probe(jobs);
        QCOMPARE(results.size(), jobs.size());
        for (int i = 0; i < kWaiting; ++i) {
            QCOMPARE(answer(results.at(i)), QStringLiteral("waiting"));
            QCOMPARE(results.at(i)->jobId, waitingId(i + 1));
            QCOMPARE(results.at(i)->queue, kQueue);
            QCOMPARE(results.at(i)->name, QStringLiteral("job"));
            QVERIFY(results.at(i)->timestamp > 0);
        }
        QCOMPARE(answer(results.at(kWaiting)), QStringLiteral("delayed"));
        QCOMPARE(answer(results.at(kWaiting + 1)), QStringLiteral("missing"));
        QCOMPARE(answer(results.at(kWaiting + 2)), QStringLiteral("waiting"));

        // A few ids take the LPOS path: same answers.
        const auto few = probe({ref(kQueue, waitingId(1)), ref(kQueue, waitingId(kWaiting)),
                                ref(kQueue, QStringLiteral("pb-nosuchjob"))});
        QCOMPARE(answer(few.at(0)), QStringLiteral("waiting"));
        QCOMPARE(answer(few.at(1)), QStringLiteral("waiting"));
        QCOMPARE(answer(few.at(2)), QStringLiteral("missing"));
    }

    // Past the walk limit a list member is "list-unresolved" (the caller reads the list), never
    // "stray", whichever path the script takes.
    void walkLimitLeavesTheHeadUnresolved()
    {
        const int limit = 25;
        const auto results = probe(allWaiting(), limit);
        for (int i = 1; i <= kWaiting; ++i)
            QCOMPARE(answer(results.at(i - 1)),
                     i <= limit ? QStringLiteral("waiting") : QStringLiteral("list-unresolved"));
        const auto newest = probe({ref(kQueue, waitingId(kWaiting))}, limit);
        QCOMPARE(answer(newest.first()), QStringLiteral("list-unresolved"));
        const auto oldest = probe({ref(kQueue, waitingId(1))}, limit);
        QCOMPARE(answer(oldest.first()), QStringLiteral("waiting"));
    }

    // Results come back in request order however the ids are cut into script calls and round
    // trips, and across queues mixed in one request.
    void orderSurvivesCallsAndTrips()
    {
        QList<JobRef> jobs;
        QStringList expected;
        for (int i = 0; i < 600; ++i) {
            if (i % 15 == 0) {
                jobs << ref(kQueue, waitingId(1 + (i / 15) % kWaiting));
                expected << QStringLiteral("waiting");
            } else if (i % 15 == 7) {
                jobs << ref(kOther, QStringLiteral("po"));
                expected << QStringLiteral("waiting");
            } else {
                jobs << ref(i % 2 ? kQueue : kOther, QStringLiteral("absent-%1").arg(i));
                expected << QStringLiteral("missing");
            }
        }
        qint64 oneTrip = 0;
        const auto together = probe(jobs, 10000, 1000, &oneTrip);
        qint64 sixTrips = 0;
        const auto cut = probe(jobs, 10000, 100, &sixTrips);
        QCOMPARE(oneTrip, 1);
        QCOMPARE(sixTrips, 6);
        for (qsizetype i = 0; i < jobs.size(); ++i) {
            QCOMPARE(answer(together.at(i)), expected.at(i));
            QCOMPARE(answer(cut.at(i)), expected.at(i));
            QCOMPARE(together.at(i)->jobId, jobs.at(i).jobId);
            QCOMPARE(together.at(i)->queue, jobs.at(i).queue);
        }
    }

    // The server forgets its scripts (a restart, SCRIPT FLUSH) between two lookups: the first
    // trip comes back NOSCRIPT with the next already in flight; both go again after the load.
    void lostScriptIsLoadedAgain()
    {
        QList<JobRef> jobs;
        for (int i = 0; i < 300; ++i)
            jobs << ref(kQueue,
                        i % 3 ? QStringLiteral("gone-%1").arg(i) : waitingId(1 + i % kWaiting));
        RunSettings settings = m_config.run;
        settings.probeBatchSize = 100;
        RedisAdapters adapters(m_config.redis, settings);
        const auto before = adapters.queue.probe(jobs);
        {
            auto conn = redis(m_env);
            QVERIFY(conn.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("FLUSH")}));
        }
        const auto after = adapters.queue.probe(jobs);
        QCOMPARE(after.size(), jobs.size());
        for (qsizetype i = 0; i < jobs.size(); ++i) {
            QCOMPARE(answer(after.at(i)),
                     i % 3 ? QStringLiteral("missing") : QStringLiteral("waiting"));
            QCOMPARE(answer(after.at(i)), answer(before.at(i)));
        }
    }

    // A list the script cannot read fails the ids still looked for in it — as errors, not as
    // "missing" or "stray" — while the rest of the batch keeps its answers.
    void unreadableListFailsOnlyTheIdsLookedForThere()
    {
        const QByteArray active = QByteArrayLiteral("bull:probe-batch:active");
        {
            auto conn = redis(m_env);
            QVERIFY(conn.command({QByteArrayLiteral("SET"), active, QByteArrayLiteral("oops")}));
        }
        QList<JobRef> jobs = allWaiting();
        jobs << ref(kQueue, m_delayedId) << ref(kQueue, QStringLiteral("pb-nosuchjob"));
        const auto many = probe(jobs);
        const auto few = probe({ref(kQueue, waitingId(3)), ref(kQueue, m_delayedId)});
        {
            auto conn = redis(m_env);
            QVERIFY(conn.command({QByteArrayLiteral("DEL"), active}));
        }
        for (int i = 0; i < kWaiting; ++i) {
            QVERIFY2(!many.at(i), qPrintable(answer(many.at(i))));
            QCOMPARE(many.at(i).error().kind, RedisError::Kind::Server);
            QVERIFY2(many.at(i).error().message.contains(QStringLiteral("WRONGTYPE")),
                     qPrintable(many.at(i).error().message));
        }
        QCOMPARE(answer(many.at(kWaiting)), QStringLiteral("delayed"));
        QCOMPARE(answer(many.at(kWaiting + 1)), QStringLiteral("missing"));
        QVERIFY(!few.at(0));
        QCOMPARE(answer(few.at(1)), QStringLiteral("delayed"));
    }

    // One job key holding something else fails that id alone.
    void unreadableJobFailsOnlyThatId()
    {
        const QByteArray jobKey = QByteArrayLiteral("bull:probe-other:po-broken");
        {
            auto conn = redis(m_env);
            QVERIFY(conn.command({QByteArrayLiteral("SADD"), jobKey, QByteArrayLiteral("x")}));
        }
        const auto results =
            probe({ref(kOther, QStringLiteral("po")), ref(kOther, QStringLiteral("po-broken")),
                   ref(kOther, QStringLiteral("po-absent"))});
        QCOMPARE(answer(results.at(0)), QStringLiteral("waiting"));
        QVERIFY(!results.at(1));
        QCOMPARE(results.at(1).error().kind, RedisError::Kind::Server);
        QCOMPARE(answer(results.at(2)), QStringLiteral("missing"));
    }

    // Redis unreachable: every lookup is an error, none is "missing".
    void unreachableRedisIsNeverMissing()
    {
        ReclaimConfig config = m_config;
        config.redis.port = 1; // nothing listens there
        RedisAdapters adapters(config.redis, config.run);
        const auto results = adapters.queue.probe(allWaiting());
        QCOMPARE(results.size(), kWaiting);
        for (const auto &r : results) {
            QVERIFY(!r);
            QCOMPARE(r.error().kind, RedisError::Kind::Connect);
        }
    }
};

QTEST_GUILESS_MAIN(TestProbeBatch)
#include "test_probebatch.moc"
