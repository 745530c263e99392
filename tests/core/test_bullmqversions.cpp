// Reclaim against the latest bullmq of each major (4.x, 5.x, 6.x: refapp/bullmq-versions), each
// running the same scenario (refapp/bullmq-versions/scenario.js):
//  - every state the version produces gets the verdict the version's own Job.getState() implies;
//  - a requeue writes, key by key and field by field, what that version's own add writes;
//  - requeued jobs, one of them over a retained job under the same id, are completed by an
//    unmodified Worker of that version that was blocked waiting before the requeue.
//
// getState() → verdict (what a direct lookup of the id must conclude):
//   waiting, delayed, prioritized, waiting-children, active  → SCHEDULED (runnable: a worker of
//     the version will, or does, run it; bullmq reports a paused queue's jobs as "waiting", and
//     an active job whose worker died as "active" until a stalled check moves it back to wait)
//   completed, failed, unknown (removed, never added)         → ABSENT (nothing will run it)
#include "bullmq/bullmqlayout.h"
#include "fencing/redislock.h"
#include "recovery/directlookup.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <memory>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QString kPrefix = QStringLiteral("bull");
constexpr qint64 kGeneration = 7;

QString versionDir(const QString &major)
{
    return QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/bullmq-versions/v") + major;
}

QStringList scenarioArgs(const SandboxEnv &env, const QString &major, const QString &queue)
{
    return {QStringLiteral("--bullmq"), versionDir(major), QStringLiteral("--redis"), env.redisUrl,
            QStringLiteral("--prefix"), kPrefix,           QStringLiteral("--queue"), queue};
}

QList<QJsonObject> jsonLines(const QByteArray &out)
{
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject())
            lines << doc.object();
    }
    return lines;
}

// One scenario command run to completion; its JSON lines.
QList<QJsonObject> scenario(const SandboxEnv &env, const QString &major, const QString &queue,
                            const QStringList &command)
{
    return jsonLines(runNode(env, QStringLiteral("bullmq-versions/scenario.js"),
                             scenarioArgs(env, major, queue) + command, 60000));
}

// A scenario command left running (the producer holding its live worker, a blocked worker).
class Running final
{
public:
    Running(const SandboxEnv &env, const QString &major, const QString &queue,
            const QStringList &command)
    {
        m_p.setProcessEnvironment(env.processEnvironment());
        m_p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_p.start(
            QStringLiteral(RECLAIM_NODE),
            QStringList{QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/bullmq-versions/scenario.js")} +
                scenarioArgs(env, major, queue) + command);
    }
    ~Running()
    {
        if (m_p.state() != QProcess::NotRunning) {
            m_p.terminate();
            if (!m_p.waitForFinished(10000)) {
                m_p.kill();
                m_p.waitForFinished();
            }
        }
    }
    Q_DISABLE_COPY_MOVE(Running)

    // Everything printed so far (read on the event loop, which QTRY_ turns).
    const QByteArray &output()
    {
        m_out += m_p.readAllStandardOutput();
        return m_out;
    }
    QList<QJsonObject> lines() { return jsonLines(output()); }
    bool printed(const QByteArray &what) { return output().contains(what); }
    bool finished() { return m_p.state() == QProcess::NotRunning; }

private:
    QProcess m_p;
    QByteArray m_out;
};

QString compact(const QJsonValue &v)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

bool runnableByTheLibrary(const QString &state)
{
    static const QStringList runnable{QStringLiteral("waiting"), QStringLiteral("delayed"),
                                      QStringLiteral("prioritized"),
                                      QStringLiteral("waiting-children"), QStringLiteral("active")};
    return runnable.contains(state);
}

// One queue's every key, as comparable JSON: strings, hashes (field → value), lists, sets,
// sorted sets (member → score) and streams (entries' fields, without their time-based ids).
// Key names are given without the "<prefix>:<queue>:" part, so two queues compare directly.
QJsonObject snapshot(RedisConnection &redis, const QString &queue)
{
    const QByteArray base = (kPrefix + QLatin1Char(':') + queue + QLatin1Char(':')).toUtf8();
    QJsonObject out;
    auto keys = redis.command({QByteArrayLiteral("KEYS"), base + '*'});
    if (!keys)
        return out;
    for (const RedisValue &k : keys->elements) {
        const QByteArray key = k.toBytes().value_or(QByteArray());
        const QString type = redis.command({QByteArrayLiteral("TYPE"), key})->toText();
        QJsonValue v;
        if (type == QLatin1String("string")) {
            v = redis.command({QByteArrayLiteral("GET"), key})->toText();
        } else if (type == QLatin1String("hash")) {
            QJsonObject h;
            const auto r = redis.command({QByteArrayLiteral("HGETALL"), key});
            for (qsizetype i = 0; i + 1 < r->elements.size(); i += 2)
                h.insert(r->elements.at(i).toText(), r->elements.at(i + 1).toText());
            v = h;
        } else if (type == QLatin1String("list")) {
            QJsonArray a;
            const auto r = redis.command({QByteArrayLiteral("LRANGE"), key, "0", "-1"});
            for (const RedisValue &e : r->elements)
                a << e.toText();
            v = a;
        } else if (type == QLatin1String("zset")) {
            QJsonObject z;
            const auto r =
                redis.command({QByteArrayLiteral("ZRANGE"), key, "0", "-1", "WITHSCORES"});
            for (qsizetype i = 0; i + 1 < r->elements.size(); i += 2)
                z.insert(r->elements.at(i).toText(), r->elements.at(i + 1).toText());
            v = z;
        } else if (type == QLatin1String("stream")) {
            QJsonArray a;
            const auto r = redis.command({QByteArrayLiteral("XRANGE"), key, "-", "+"});
            for (const RedisValue &entry : r->elements) {
                QJsonArray fields;
                for (const RedisValue &f : entry.elements.value(1).elements)
                    fields << f.toText();
                a << fields;
            }
            v = a;
        } else {
            v = QStringLiteral("<%1>").arg(type);
        }
        out.insert(QString::fromUtf8(key.mid(base.size())), v);
    }
    return out;
}

// The differences between the library's queue and Reclaim's, key by key and field by field,
// apart from `allowed` ("<key>.<field>" of a hash).
QStringList differences(const QJsonObject &library, const QJsonObject &reclaim,
                        const QSet<QString> &allowed)
{
    QStringList out;
    QSet<QString> keys;
    for (auto it = library.begin(); it != library.end(); ++it)
        keys.insert(it.key());
    for (auto it = reclaim.begin(); it != reclaim.end(); ++it)
        keys.insert(it.key());
    for (const QString &key : keys) {
        const QJsonValue a = library.value(key), b = reclaim.value(key);
        if (a.isObject() && b.isObject()) {
            const QJsonObject x = a.toObject(), y = b.toObject();
            QSet<QString> fields;
            for (auto it = x.begin(); it != x.end(); ++it)
                fields.insert(it.key());
            for (auto it = y.begin(); it != y.end(); ++it)
                fields.insert(it.key());
            for (const QString &f : fields) {
                if (allowed.contains(key + QLatin1Char('.') + f))
                    continue;
                QJsonValue fx = x.value(f), fy = y.value(f);
                // The options are JSON whose key order is Lua's table order: compare parsed.
                if (f == QLatin1String("opts") && fx.isString() && fy.isString()) {
                    fx = QJsonDocument::fromJson(fx.toString().toUtf8()).object();
                    fy = QJsonDocument::fromJson(fy.toString().toUtf8()).object();
                }
                if (fx != fy)
                    out << QStringLiteral("%1.%2: library %3, reclaim %4")
                               .arg(key, f, compact(fx), compact(fy));
            }
        } else if (a != b) {
            out << QStringLiteral("%1: library %2, reclaim %3").arg(key, compact(a), compact(b));
        }
    }
    return out;
}

} // namespace

class TestBullmqVersions : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    ReclaimConfig m_config;

    // `ifUnstamped`: the major a domain's bullmqIfUnstamped names ("" when it names none);
    // `options`: a domain's jobOptions as JSON ("" when it sets none).
    Expected<EnqueueOutcome, RedisError> requeue(const QString &queue, const QString &id,
                                                 const QByteArray &data,
                                                 const QString &ifUnstamped = {},
                                                 const QByteArray &options = {})
    {
        RedisAdapters adapters(m_config.redis, m_config.run);
        EnqueueRequest r;
        r.job = JobRef{kPrefix, queue, id};
        r.name = QStringLiteral("job");
        r.data = data;
        r.timestampMs = QDateTime::currentMSecsSinceEpoch();
        r.generation = kGeneration;
        r.familyIfUnstamped = ifUnstamped;
        r.options = options;
        return adapters.queue.enqueue(r);
    }

    void versions()
    {
        QTest::addColumn<QString>("major");
        QTest::addColumn<QString>("family");
        QTest::newRow("bullmq 4.x") << QStringLiteral("4") << QStringLiteral("4");
        QTest::newRow("bullmq 5.x") << QStringLiteral("5") << QStringLiteral("5");
        QTest::newRow("bullmq 6.x") << QStringLiteral("6") << QStringLiteral("6");
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        m_config = sampleConfig(m_env);
    }

    void init()
    {
        resetSandbox(m_env);
        RedisConnection redis = test::redis(m_env);
        QVERIFY(redis.command({QByteArrayLiteral("SET"),
                               RedisLock::generationKeyFor(m_config.run.lockKey),
                               QByteArray::number(kGeneration)}));
    }

    void verdictEqualsTheLibrarysOwnState_data() { versions(); }
    void verdictEqualsTheLibrarysOwnState()
    {
        QFETCH(QString, major);
        QFETCH(QString, family);
        Running producer(m_env, major, QStringLiteral("states"), {QStringLiteral("produce")});
        QTRY_VERIFY_WITH_TIMEOUT(producer.printed("SCENARIO READY") || producer.finished(), 60000);
        QVERIFY2(producer.printed("SCENARIO READY"), producer.output().constData());
        const QJsonObject manifest = producer.lines().value(0);
        QVERIFY(manifest.value(QStringLiteral("version"))
                    .toString()
                    .startsWith(major + QLatin1Char('.')));

        QStringList problems;
        QSet<QString> statesSeen;
        const QJsonArray jobs = manifest.value(QStringLiteral("jobs")).toArray();
        RedisAdapters adapters(m_config.redis, m_config.run);
        for (const QJsonValue &value : jobs) {
            const QJsonObject job = value.toObject();
            const QString queue = job.value(QStringLiteral("queue")).toString();
            const QString id = job.value(QStringLiteral("id")).toString();
            const QString state = job.value(QStringLiteral("state")).toString();
            statesSeen.insert(state);
            DomainConfig domain;
            domain.name = QStringLiteral("versions");
            domain.queues = {queue};
            domain.keyPrefix = kPrefix;
            domain.jobIdTemplate = QStringLiteral("{id}");
            Candidate candidate;
            candidate.domain = domain.name;
            candidate.id = id;
            const CandidateVerdict v = lookUpDirectly(domain, {candidate}, adapters.queue).value(0);
            const Verdict expected =
                runnableByTheLibrary(state) ? Verdict::Scheduled : Verdict::Absent;
            if (v.verdict != expected)
                problems << QStringLiteral("%1 (%2 %3): bullmq says %4, Reclaim %5 (%6)")
                                .arg(job.value(QStringLiteral("label")).toString(), queue, id,
                                     state, verdictName(v.verdict), v.summary());
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        // Every state the scenario makes was made, and the layout is the one expected.
        QCOMPARE(jobs.size(), 17);
        for (const char *s : {"waiting", "delayed", "prioritized", "waiting-children", "active",
                              "completed", "failed", "unknown"})
            QVERIFY2(statesSeen.contains(QLatin1String(s)), s);
        RedisConnection redis = test::redis(m_env);
        const BullmqLayout layout = BullmqLayout::fromMetaVersion(
            redis
                .command({QByteArrayLiteral("HGET"), QByteArrayLiteral("bull:states:meta"),
                          QByteArrayLiteral("version")})
                ->toText());
        QCOMPARE(layout.familyTag(), family);
    }

    void requeueWritesWhatTheLibrarysAddWrites_data()
    {
        QTest::addColumn<QString>("major");
        QTest::addColumn<bool>("paused");
        for (const char *major : {"4", "5", "6"}) {
            QTest::addRow("bullmq %s.x", major) << QString::fromLatin1(major) << false;
            QTest::addRow("bullmq %s.x, paused queue", major) << QString::fromLatin1(major) << true;
        }
    }
    // Two fresh queues opened by the version's Queue; the library adds a job to one, Reclaim
    // requeues the same job to the other. Documented differences: the job hash's `timestamp`
    // (the moment of each add) and the events' stream entry ids (time-based; not compared).
    void requeueWritesWhatTheLibrarysAddWrites()
    {
        QFETCH(QString, major);
        QFETCH(bool, paused);
        const QString lib = QStringLiteral("by-library"), rec = QStringLiteral("by-reclaim");
        for (const QString &q : {lib, rec}) {
            scenario(m_env, major, q, {QStringLiteral("counts")});
            if (paused)
                scenario(m_env, major, q, {QStringLiteral("pause")});
        }
        const QByteArray data = R"({"jobId":"row-1","input":[1,2,3]})";
        scenario(m_env, major, lib,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("x-1"),
                  QStringLiteral("--data"), QString::fromUtf8(data)});
        const auto r = requeue(rec, QStringLiteral("x-1"), data);
        QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
        QVERIFY(r->enqueued);
        RedisConnection redis = test::redis(m_env);
        const QJsonObject a = snapshot(redis, lib), b = snapshot(redis, rec);
        QVERIFY(a.contains(QStringLiteral("x-1")));
        const QStringList diff = differences(a, b, {QStringLiteral("x-1.timestamp")});
        QVERIFY2(diff.isEmpty(),
                 qPrintable(QStringLiteral("library %1\nreclaim %2\n%3")
                                .arg(compact(a), compact(b), diff.join(QLatin1Char('\n')))));
    }

    // #31 item 10: with the domain's job options (the application's retry policy), a requeue
    // with no retained job to copy from writes what the library's add with those options
    // writes: the options field by field, and for a priority the prioritized set and counter.
    void requeueWithTheDomainsOptionsWritesWhatTheLibrarysAddWrites_data()
    {
        QTest::addColumn<QString>("major");
        QTest::addColumn<QByteArray>("options");
        for (const char *major : {"4", "5", "6"}) {
            QTest::addRow("bullmq %s.x, retries", major)
                << QString::fromLatin1(major)
                << QByteArrayLiteral(
                       R"({"attempts":5,"backoff":{"type":"exponential","delay":1000},)"
                       R"("removeOnComplete":100,"removeOnFail":{"age":3600}})");
            QTest::addRow("bullmq %s.x, priority", major)
                << QString::fromLatin1(major)
                << QByteArrayLiteral(R"({"attempts":2,"priority":7,"removeOnComplete":true})");
        }
    }
    void requeueWithTheDomainsOptionsWritesWhatTheLibrarysAddWrites()
    {
        QFETCH(QString, major);
        QFETCH(QByteArray, options);
        const QString lib = QStringLiteral("by-library"), rec = QStringLiteral("by-reclaim");
        for (const QString &q : {lib, rec})
            scenario(m_env, major, q, {QStringLiteral("counts")});
        const QByteArray data = R"({"jobId":"row-2"})";
        scenario(m_env, major, lib,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("o-1"),
                  QStringLiteral("--data"), QString::fromUtf8(data), QStringLiteral("--opts"),
                  QString::fromUtf8(options)});
        const auto r = requeue(rec, QStringLiteral("o-1"), data, {}, options);
        QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
        QVERIFY(r->enqueued);
        RedisConnection redis = test::redis(m_env);
        const QJsonObject a = snapshot(redis, lib), b = snapshot(redis, rec);
        QVERIFY(a.contains(QStringLiteral("o-1")));
        const QStringList diff = differences(a, b, {QStringLiteral("o-1.timestamp")});
        QVERIFY2(diff.isEmpty(),
                 qPrintable(QStringLiteral("library %1\nreclaim %2\n%3")
                                .arg(compact(a), compact(b), diff.join(QLatin1Char('\n')))));
    }

    void requeuedJobsAreCompletedByABlockedWorker_data() { versions(); }
    void requeuedJobsAreCompletedByABlockedWorker()
    {
        QFETCH(QString, major);
        const QString q = QStringLiteral("work");
        // Retained: one completed with options worth keeping, one failed.
        scenario(m_env, major, q,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("again-1"),
                  QStringLiteral("--data"), QStringLiteral("{}"), QStringLiteral("--opts"),
                  QStringLiteral(R"({"attempts":3,"backoff":{"type":"fixed","delay":10},)"
                                 R"("priority":2,"removeOnFail":false})")});
        scenario(m_env, major, q,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("failed-1"),
                  QStringLiteral("--data"), QStringLiteral(R"({"fail":true})")});
        scenario(m_env, major, q,
                 {QStringLiteral("work"), QStringLiteral("--count"), QStringLiteral("2"),
                  QStringLiteral("--timeout-ms"), QStringLiteral("20000")});
        {
            const QJsonObject c = scenario(m_env, major, q, {QStringLiteral("counts")})
                                      .value(0)
                                      .value(QStringLiteral("counts"))
                                      .toObject();
            QCOMPARE(c.value(QStringLiteral("completed")).toInt(), 1);
            QCOMPARE(c.value(QStringLiteral("failed")).toInt(), 1);
        }

        // A worker of the version, blocked waiting on an empty queue before anything is requeued.
        Running worker(m_env, major, q,
                       {QStringLiteral("work"), QStringLiteral("--count"), QStringLiteral("3"),
                        QStringLiteral("--timeout-ms"), QStringLiteral("30000")});
        QTRY_VERIFY_WITH_TIMEOUT(worker.printed("\"blocked\"") || worker.finished(), 30000);
        QVERIFY(worker.printed("\"blocked\""));

        // One at a time: each must wake the worker by itself (the marker in 5.x/6.x, the wait
        // list in 4.x), not ride on a later requeue's wake-up, and within 4 s: a worker that
        // was not woken would only look again after its 5 s drain delay (bullmq's default).
        const auto fresh = requeue(q, QStringLiteral("new-1"), R"({"jobId":"n"})");
        QVERIFY2(fresh, fresh ? "" : qPrintable(fresh.error().describe()));
        QVERIFY(fresh->enqueued);
        QTRY_VERIFY_WITH_TIMEOUT(worker.printed(R"("completed","id":"new-1")"), 4000);
        const auto again = requeue(q, QStringLiteral("again-1"), R"({"jobId":"a"})");
        QVERIFY2(again, again ? "" : qPrintable(again.error().describe()));
        QVERIFY(again->enqueued);
        QTRY_VERIFY_WITH_TIMEOUT(worker.printed(R"("completed","id":"again-1")"), 4000);
        const auto failed = requeue(q, QStringLiteral("failed-1"), R"({"jobId":"f"})");
        QVERIFY2(failed, failed ? "" : qPrintable(failed.error().describe()));
        QVERIFY(failed->enqueued);
        QCOMPARE(fresh->replacedState, QString());
        QCOMPARE(again->replacedState, QStringLiteral("completed"));
        QCOMPARE(failed->replacedState, QStringLiteral("failed"));
        // The retained job's options carried over, its priority with them.
        const QJsonObject opts = QJsonDocument::fromJson(again->options).object();
        QCOMPARE(opts.value(QStringLiteral("attempts")).toInt(), 3);
        QCOMPARE(opts.value(QStringLiteral("priority")).toInt(), 2);
        QCOMPARE(
            opts.value(QStringLiteral("backoff")).toObject().value(QStringLiteral("delay")).toInt(),
            10);
        QCOMPARE(opts.value(QStringLiteral("removeOnFail")).toBool(true), false);

        QTRY_VERIFY_WITH_TIMEOUT(worker.finished(), 30000);
        QSet<QString> completed;
        for (const QJsonObject &e : worker.lines())
            if (e.value(QStringLiteral("event")).toString() == QLatin1String("completed"))
                completed.insert(e.value(QStringLiteral("id")).toString());
        QCOMPARE(completed, (QSet<QString>{QStringLiteral("new-1"), QStringLiteral("again-1"),
                                           QStringLiteral("failed-1")}));

        const QJsonObject c = scenario(m_env, major, q, {QStringLiteral("counts")})
                                  .value(0)
                                  .value(QStringLiteral("counts"))
                                  .toObject();
        QCOMPARE(c.value(QStringLiteral("completed")).toInt(), 3);
        for (const char *s : {"active", "delayed", "failed", "paused", "prioritized", "waiting",
                              "waiting-children"})
            QVERIFY2(c.value(QLatin1String(s)).toInt() == 0, s);
    }

    // #30: Redis loses the queue — every key, its meta hash and version stamp with them — while
    // the application runs: its Queue stamped the meta when it opened and will not again until
    // it restarts; its Worker blocks on, waiting. A requeue with nothing saying which layout is
    // refused, naming the key that would say it, and writes nothing; with the domain's
    // bullmqIfUnstamped it writes that major's add, and the version's own worker, blocked since
    // before the loss, runs it.
    void aQueueThatLostItsStampIsWrittenAsItsDomainSays_data() { versions(); }
    void aQueueThatLostItsStampIsWrittenAsItsDomainSays()
    {
        QFETCH(QString, major);
        const QString q = QStringLiteral("lost");
        Running worker(m_env, major, q,
                       {QStringLiteral("work"), QStringLiteral("--count"), QStringLiteral("1"),
                        QStringLiteral("--timeout-ms"), QStringLiteral("30000")});
        QTRY_VERIFY_WITH_TIMEOUT(worker.printed("\"blocked\"") || worker.finished(), 30000);
        QVERIFY(worker.printed("\"blocked\""));
        RedisConnection redis = test::redis(m_env);
        QCOMPARE(redis
                     .command({QByteArrayLiteral("HEXISTS"), QByteArrayLiteral("bull:lost:meta"),
                               QByteArrayLiteral("version")})
                     ->toInteger()
                     .value_or(0),
                 1);
        const auto keys =
            redis.command({QByteArrayLiteral("KEYS"), QByteArrayLiteral("bull:lost:*")});
        QVERIFY(keys);
        for (const RedisValue &k : keys->elements)
            QVERIFY(redis.command({QByteArrayLiteral("DEL"), k.toBytes().value_or(QByteArray())}));

        const QByteArray data = R"({"jobId":"row-9","input":[9]})";
        const auto refused = requeue(q, QStringLiteral("lost-1"), data);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, RedisError::Kind::Layout);
        QVERIFY2(refused.error().message.contains(QStringLiteral("domains[].bullmqIfUnstamped")),
                 qPrintable(refused.error().message));
        QCOMPARE(
            redis.command({QByteArrayLiteral("EXISTS"), QByteArrayLiteral("bull:lost:lost-1")})
                ->toInteger()
                .value_or(-1),
            0);

        const auto written = requeue(q, QStringLiteral("lost-1"), data, major);
        QVERIFY2(written, written ? "" : qPrintable(written.error().describe()));
        QVERIFY(written->enqueued);
        QVERIFY2(written->assumedLayout.contains(QStringLiteral("bullmq %1.x").arg(major)),
                 qPrintable(written->assumedLayout));
        QTRY_VERIFY_WITH_TIMEOUT(worker.printed(R"("completed","id":"lost-1")"), 10000);
    }

    // #31 item 4: a meta field the enqueue must read as a number is not one. The script checks
    // everything before its first write (Redis does not roll a script back), so the requeue
    // fails and Redis is exactly as it was: the retained job under the id is still there, no
    // stray hash, no event, no counter moved.
    void aCorruptMetaFieldWritesNothing_data()
    {
        QTest::addColumn<QByteArray>("field");
        QTest::newRow("concurrency") << QByteArrayLiteral("concurrency");
        QTest::newRow("opts.maxLenEvents") << QByteArrayLiteral("opts.maxLenEvents");
    }
    void aCorruptMetaFieldWritesNothing()
    {
        QFETCH(QByteArray, field);
        const QString q = QStringLiteral("corrupt");
        scenario(m_env, QStringLiteral("6"), q,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("r-1"),
                  QStringLiteral("--data"), QStringLiteral("{}")});
        RedisConnection redis = test::redis(m_env);
        // The job finished and was kept: a retained job the requeue would replace.
        QVERIFY(redis.command({"LREM", "bull:corrupt:wait", "0", "r-1"}));
        QVERIFY(redis.command({"ZADD", "bull:corrupt:completed", "1", "r-1"}));
        QVERIFY(redis.command({"HSET", "bull:corrupt:meta", field, "lots"}));
        const QByteArray before = QJsonDocument(snapshot(redis, q)).toJson();
        QVERIFY(before.contains("r-1"));
        const auto r = requeue(q, QStringLiteral("r-1"), R"({"jobId":"r"})");
        QVERIFY(!r);
        QVERIFY2(r.error().message.contains(QString::fromLatin1(field)) &&
                     r.error().message.contains(QLatin1String("lots")),
                 qPrintable(r.error().message));
        QCOMPARE(QJsonDocument(snapshot(redis, q)).toJson(), before);
    }

    // A queue stamped by a release Reclaim does not know is neither read nor written.
    void anUnknownLayoutIsRefused()
    {
        const QString q = QStringLiteral("future");
        scenario(m_env, QStringLiteral("6"), q,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("f-1"),
                  QStringLiteral("--data"), QStringLiteral("{}")});
        RedisConnection redis = test::redis(m_env);
        QVERIFY(redis.command({QByteArrayLiteral("HSET"), QByteArrayLiteral("bull:future:meta"),
                               QByteArrayLiteral("version"), QByteArrayLiteral("bullmq:7.0.0")}));
        RedisAdapters adapters(m_config.redis, m_config.run);
        const auto seen = adapters.queue.probe({JobRef{kPrefix, q, QStringLiteral("f-1")},
                                                JobRef{kPrefix, q, QStringLiteral("gone")}});
        QCOMPARE(seen.size(), 2);
        for (const auto &s : seen) {
            QVERIFY(!s);
            QCOMPARE(s.error().kind, RedisError::Kind::Layout);
            QVERIFY2(s.error().message.contains(QLatin1String("bullmq:7.0.0")),
                     qPrintable(s.error().message));
        }
        const auto page = adapters.queue.scanPage(kPrefix, q, QStringLiteral("wait"), {}, 10);
        QVERIFY(!page);
        QCOMPARE(page.error().kind, RedisError::Kind::Layout);
        const QByteArray before = QJsonDocument(snapshot(redis, q)).toJson();
        const auto r = requeue(q, QStringLiteral("gone"), "{}");
        QVERIFY(!r);
        QCOMPARE(r.error().kind, RedisError::Kind::Layout);
        QCOMPARE(QJsonDocument(snapshot(redis, q)).toJson(), before);
    }
};

QTEST_GUILESS_MAIN(TestBullmqVersions)
#include "test_bullmqversions.moc"
