// #28 cases 1-3 against a real redis-server, with each supported bullmq major (4.x, 5.x, 6.x)
// moving the queue between two pages of the scan, as ordinary traffic does:
//   1. an anchor that comes back: the job a page ended at is taken by a worker, fails, and its
//      retry pushes it back at the head of `wait` (and, in `delayed`, a backoff puts it back
//      with a later score);
//   2. a pause during the read (bullmq 4.x/5.x rename `wait` to `paused`);
//   3. changePriority, which writes no event, in both directions.
// Each time a legacy-id job that never moved (or moved only by the change under test) must be
// SCHEDULED, and a true orphan ABSENT. On the old scan each of them left the legacy job ABSENT:
// the page after the move started from the anchor's new place, or from an empty `wait`, or
// `prioritized` had been read before the job moved into it.
// Also cases 4, 8 and 9: right after the scan has read the last state of the queue, the library
// retries a failed legacy-id job to the head of a `wait` list longer than the probe walks and
// adds one with a 40 KB payload, on a queue that also holds ordinary jobs whose data is valid
// JSON naming no row. Before the fix the first was ABSENT (the "list-unresolved" answer was
// dropped as gone), the second's payload was cut at 16 KiB and unreadable, and the ordinary
// jobs made the orphan UNKNOWN on every run.
#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "support/scanhook.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kPageSize = 10;
const QString kFiller = QStringLiteral("{\"jobId\":\"someone_else\"}");
const QString kHour = QStringLiteral("{\"delay\":3600000}");

class Queue final
{
public:
    Queue(const SandboxEnv &env, QString major, QString name)
        : m_env(env), m_major(std::move(major)), m_name(std::move(name))
    {}
    const QString &name() const { return m_name; }

    QJsonObject run(const QStringList &command) const
    {
        const QByteArray out = runNode(
            m_env, QStringLiteral("bullmq-versions/scenario.js"),
            QStringList{QStringLiteral("--bullmq"),
                        QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/bullmq-versions/v") + m_major,
                        QStringLiteral("--redis"), m_env.redisUrl, QStringLiteral("--prefix"),
                        QStringLiteral("bull"), QStringLiteral("--queue"), m_name} +
                command,
            60000);
        return QJsonDocument::fromJson(out.trimmed().split('\n').last()).object();
    }
    void add(const QString &id, const QString &data, const QString &opts = QStringLiteral("{}"))
    {
        run({QStringLiteral("add"), QStringLiteral("--id"), id, QStringLiteral("--data"), data,
             QStringLiteral("--opts"), opts});
    }
    void fill(int count, const QString &opts = QStringLiteral("{}"))
    {
        run({QStringLiteral("bulk"), QStringLiteral("--count"), QString::number(count),
             QStringLiteral("--data"), kFiller, QStringLiteral("--opts"), opts});
    }
    QString state(const QString &id) const
    {
        return run({QStringLiteral("state"), QStringLiteral("--id"), id})
            .value(QStringLiteral("state"))
            .toString();
    }

private:
    const SandboxEnv &m_env;
    QString m_major;
    QString m_name;
};

} // namespace

class TestScanTraffic : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    int m_tables = 0;

    using Hook = std::function<void(const QString &state, const ScanPage &page)>;

    // A table with `rows` (stale, QUEUED) and a dry run over `queue` whose scan calls `hook`
    // after every page of that queue. Returns the verdicts by row id.
    QHash<QString, CandidateVerdict>
    scan(const Queue &queue, const Hook &hook, ScanStats *stats = nullptr,
         const QStringList &rows = {QStringLiteral("legacy"), QStringLiteral("true_orphan")},
         int listProbeLimit = 0)
    {
        const QString table = QStringLiteral("Traffic%1").arg(++m_tables);
        sql(m_env, QStringLiteral("CREATE TABLE \"%1\" (id text PRIMARY KEY, status text NOT "
                                  "NULL, \"updatedAt\" timestamp(3) NOT NULL)")
                       .arg(table));
        for (const QString &id : rows)
            sql(m_env,
                QStringLiteral("INSERT INTO \"%1\" VALUES (?, 'QUEUED', now() AT TIME ZONE "
                               "'UTC' - interval '2 hours')")
                    .arg(table),
                {id});
        ReclaimConfig c = sampleConfig(m_env);
        DomainConfig d;
        d.name = QStringLiteral("traffic");
        d.table = table;
        d.queues = {queue.name()};
        d.jobIdTemplate = queue.name() + QStringLiteral("-{id}");
        c.domains = {d};
        c.run.scanPageSize = kPageSize;
        if (listProbeLimit > 0)
            c.run.listProbeLimit = listProbeLimit;
        RedisAdapters ports(c.redis, c.run);
        ScanHookInspector inspector(
            ports.queue, [&](const QString &q, const QString &state, const ScanPage &page) {
                if (q == queue.name())
                    hook(state, page);
            });
        auto store = PgJobStore::open(c, true);
        if (!store)
            qFatal("%s", qPrintable(store.error().message));
        RunRequest request;
        request.trigger = QStringLiteral("test");
        request.dryRun = true;
        request.actor =
            Actor{QStringLiteral("test"), QStringLiteral("traffic"), QStringLiteral("t"), {}};
        const RunReport report =
            RecoveryRun(c, store->get(), {}, inspector, ports.queue, ports.lock).run(request);
        QHash<QString, CandidateVerdict> out;
        if (report.domains.size() == 1) {
            for (const CandidateVerdict &v : report.domains.first().candidates)
                out.insert(v.candidate.id, v);
            if (stats)
                *stats = report.domains.first().scan;
        }
        return out;
    }

    static QString explain(const QHash<QString, CandidateVerdict> &v, const QString &id)
    {
        return QStringLiteral("%1 %2: %3 %4")
            .arg(id, verdictName(v.value(id).verdict), v.value(id).summary(),
                 v.value(id).unknownReason);
    }

    static void addMajors()
    {
        QTest::addColumn<QString>("major");
        QTest::newRow("bullmq 4.x") << QStringLiteral("4");
        QTest::newRow("bullmq 5.x") << QStringLiteral("5");
        QTest::newRow("bullmq 6.x") << QStringLiteral("6");
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
    }

    // The scan's step (#30): a page and the event log read after it go in one round trip, and
    // say what the two calls say; a server that lost its scripts is read as two calls again.
    void aPageAndTheEventLogAfterItAreOneRoundTrip()
    {
        Queue q(m_env, QStringLiteral("6"), QStringLiteral("one-trip"));
        q.fill(kPageSize + 5);
        ReclaimConfig c = sampleConfig(m_env);
        RedisAdapters ports(c.redis, c.run);
        const QString prefix = QStringLiteral("bull");
        const QString wait = QStringLiteral("wait");
        const auto mark = ports.queue.movesSince(prefix, q.name(), QString());
        QVERIFY(mark);
        q.add(QStringLiteral("moved-1"), kFiller);
        q.add(QStringLiteral("moved-2"), kFiller);
        // Both scripts known to the server (a fresh one answers NOSCRIPT first).
        QVERIFY(ports.queue.scanPage(prefix, q.name(), wait, {}, kPageSize));

        for (const bool lostScripts : {false, true}) {
            if (lostScripts)
                QVERIFY(redis(m_env).command(
                    {QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("FLUSH")}));
            const qint64 before = ports.queue.roundTrips();
            const auto step =
                ports.queue.scanPageThenMoves(prefix, q.name(), wait, {}, kPageSize, mark->mark);
            const qint64 trips = ports.queue.roundTrips() - before;
            QVERIFY2(step.page, qPrintable(step.page ? QString() : step.page.error().describe()));
            QVERIFY2(step.moves,
                     qPrintable(step.moves ? QString() : step.moves.error().describe()));
            if (!lostScripts)
                QCOMPARE(trips, 1);
            else
                QVERIFY2(trips > 1, qPrintable(QString::number(trips))); // loaded, then read

            const auto page = ports.queue.scanPage(prefix, q.name(), wait, {}, kPageSize);
            const auto moves = ports.queue.movesSince(prefix, q.name(), mark->mark);
            QVERIFY(page && moves);
            QCOMPARE(step.page->jobs.size(), kPageSize);
            QStringList stepIds, pageIds;
            for (const ScanPage::Job &j : step.page->jobs)
                stepIds << j.id + QLatin1Char('=') + QString::fromUtf8(j.data.value_or("nil"));
            for (const ScanPage::Job &j : page->jobs)
                pageIds << j.id + QLatin1Char('=') + QString::fromUtf8(j.data.value_or("nil"));
            QCOMPARE(stepIds, pageIds);
            QCOMPARE(step.page->next.position, page->next.position);
            QCOMPARE(step.page->next.anchors, page->next.anchors);
            QCOMPARE(step.page->done, page->done);
            QCOMPARE(step.page->stateSize, page->stateSize);
            QStringList stepMoved = step.moves->jobIds, moved = moves->jobIds;
            stepMoved.sort();
            moved.sort();
            QCOMPARE(stepMoved, moved);
            QVERIFY(stepMoved.contains(QStringLiteral("moved-1")));
            QVERIFY(stepMoved.contains(QStringLiteral("moved-2")));
            QCOMPARE(step.moves->complete, true);
        }
    }

    // The one-trip step can fail half-way: the page is read, the event log after it is not.
    // "Could not read what moved" must leave the candidate UNKNOWN — the scan cannot know that
    // a job it did not find did not move past it — never ABSENT, never an empty list of moves.
    void anEventLogThatCannotBeReadLeavesTheCandidateUnknown()
    {
        Queue q(m_env, QStringLiteral("6"), QStringLiteral("no-log"));
        q.fill(kPageSize + 5);
        const QByteArray events = QByteArrayLiteral("bull:") + q.name().toUtf8() + ":events";
        const auto breakLog = [&] {
            auto r = redis(m_env);
            QVERIFY(r.command({QByteArrayLiteral("DEL"), events}));
            QVERIFY(r.command({QByteArrayLiteral("SET"), events, QByteArrayLiteral("not a log")}));
        };

        // The adapter: the page, and the log's failure as an error.
        {
            ReclaimConfig c = sampleConfig(m_env);
            RedisAdapters ports(c.redis, c.run);
            const QString prefix = QStringLiteral("bull");
            const auto mark = ports.queue.movesSince(prefix, q.name(), QString());
            QVERIFY(mark);
            QVERIFY(ports.queue.scanPage(prefix, q.name(), QStringLiteral("wait"), {}, kPageSize));
            breakLog();
            const auto step = ports.queue.scanPageThenMoves(
                prefix, q.name(), QStringLiteral("wait"), {}, kPageSize, mark->mark);
            QVERIFY2(step.page, qPrintable(step.page ? QString() : step.page.error().describe()));
            QCOMPARE(step.page->jobs.size(), kPageSize);
            QVERIFY2(!step.moves, "an unreadable event log was read as a list of moves");
            QVERIFY2(step.moves.error().describe().contains(QLatin1String("WRONGTYPE")),
                     qPrintable(step.moves.error().describe()));
            QVERIFY(redis(m_env).command({QByteArrayLiteral("DEL"), events}));
        }

        // The run: the log breaks after the first page, and the candidate no page held is
        // UNKNOWN with the reason.
        ScanStats stats;
        bool broken = false;
        const auto verdicts = scan(q,
                                   [&](const QString &state, const ScanPage &) {
                                       if (broken || state != QLatin1String("wait"))
                                           return;
                                       broken = true;
                                       breakLog();
                                   },
                                   &stats, {QStringLiteral("true_orphan")});
        QVERIFY(broken);
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Unknown,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
        QVERIFY(stats.error);
        QVERIFY2(stats.error->contains(QLatin1String("event log")), qPrintable(*stats.error));
    }

    // Case 1, wait: the first page ends at a job that fails on the worker and is retried to the
    // head of `wait`; the legacy job sits between the old place and the new one.
    void anAnchorRetriedToTheHeadOfWaitIsNoProof_data() { addMajors(); }
    void anAnchorRetriedToTheHeadOfWaitIsNoProof()
    {
        QFETCH(QString, major);
        Queue q(m_env, major, QStringLiteral("anchor-wait-v") + major);
        q.fill(kPageSize - 1); // the tail: the first page, with the anchor
        q.add(QStringLiteral("anchor"), QStringLiteral("{\"jobId\":\"x\",\"fail\":true}"),
              QStringLiteral("{\"attempts\":2}"));
        q.fill(20);
        q.add(QStringLiteral("old-1"), QStringLiteral("{\"jobId\":\"legacy\"}"));
        q.fill(10);
        bool moved = false;
        const auto verdicts = scan(q, [&](const QString &state, const ScanPage &) {
            if (moved || state != QLatin1String("wait"))
                return;
            moved = true;
            // A worker takes the page it just read, tail first; the last one fails and retries.
            const QJsonArray taken = q.run({QStringLiteral("take"), QStringLiteral("--count"),
                                            QString::number(kPageSize)})
                                         .value(QStringLiteral("taken"))
                                         .toArray();
            QCOMPARE(taken.size(), kPageSize);
        });
        QVERIFY(moved);
        QCOMPARE(q.state(QStringLiteral("anchor")), QStringLiteral("waiting")); // it came back
        QVERIFY2(verdicts.value(QStringLiteral("legacy")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy"))));
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
    }

    // Case 1, delayed: the job a page ended at is promoted, fails, and its backoff puts it back
    // in `delayed` with a later score, past the legacy job.
    void anAnchorBackedOffInDelayedIsNoProof_data() { addMajors(); }
    void anAnchorBackedOffInDelayedIsNoProof()
    {
        QFETCH(QString, major);
        Queue q(m_env, major, QStringLiteral("anchor-delayed-v") + major);
        q.fill(kPageSize - 1, kHour);
        q.add(QStringLiteral("anchor"), QStringLiteral("{\"jobId\":\"x\",\"fail\":true}"),
              QStringLiteral("{\"delay\":3600000,\"attempts\":2,"
                             "\"backoff\":{\"type\":\"fixed\",\"delay\":7200000}}"));
        q.fill(20, kHour);
        q.add(QStringLiteral("old-1"), QStringLiteral("{\"jobId\":\"legacy\"}"), kHour);
        q.fill(10, kHour);
        bool moved = false;
        const auto verdicts = scan(q, [&](const QString &state, const ScanPage &) {
            if (moved || state != QLatin1String("delayed"))
                return;
            moved = true;
            q.run({QStringLiteral("promote"), QStringLiteral("--id"), QStringLiteral("anchor")});
            const QJsonArray taken =
                q.run({QStringLiteral("take"), QStringLiteral("--count"), QStringLiteral("1")})
                    .value(QStringLiteral("taken"))
                    .toArray();
            QCOMPARE(taken, QJsonArray{QStringLiteral("anchor")});
        });
        QVERIFY(moved);
        QCOMPARE(q.state(QStringLiteral("anchor")), QStringLiteral("delayed")); // backed off
        QVERIFY2(verdicts.value(QStringLiteral("legacy")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy"))));
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
    }

    // Case 2: Queue.pause() after the first page of `wait` (4.x and 5.x rename `wait` to
    // `paused`, which the scan has read already; the event names no job).
    void aPauseDuringTheReadIsNoProof_data() { addMajors(); }
    void aPauseDuringTheReadIsNoProof()
    {
        QFETCH(QString, major);
        Queue q(m_env, major, QStringLiteral("pause-v") + major);
        q.fill(kPageSize * 2);
        q.add(QStringLiteral("old-1"), QStringLiteral("{\"jobId\":\"legacy\"}"));
        q.fill(kPageSize);
        bool paused = false;
        ScanStats stats;
        const auto verdicts = scan(
            q,
            [&](const QString &state, const ScanPage &) {
                if (paused || state != QLatin1String("wait"))
                    return;
                paused = true;
                QCOMPARE(q.run({QStringLiteral("pause")}).value(QStringLiteral("paused")),
                         QJsonValue(true));
            },
            &stats);
        QVERIFY(paused);
        // 4.x and 5.x moved it to the `paused` list; 6.x leaves it in `wait` under a flag.
        const QString now = q.state(QStringLiteral("old-1"));
        QVERIFY2(now == QLatin1String("paused") || now == QLatin1String("waiting"),
                 qPrintable(now));
        QVERIFY2(verdicts.value(QStringLiteral("legacy")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy"))));
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
        // 4.x and 5.x: the rename was noticed and the queue read again. 6.x: a pause is a flag
        // and moves nothing, so nothing needed reading again.
        if (major == QLatin1String("6"))
            QCOMPARE(stats.queueRereads, 0);
        else
            QVERIFY(stats.queueRereads >= 1);
    }

    // Case 3: changePriority writes no event. Out of `wait` into `prioritized` (read after
    // `wait` now), and out of `prioritized` back to the head of `wait` once `wait` was read (it
    // is read again, from where it ended, after `prioritized`).
    void aPriorityChangeIsSeen_data()
    {
        QTest::addColumn<QString>("major");
        QTest::addColumn<bool>("intoPrioritized");
        const QStringList majors{QStringLiteral("4"), QStringLiteral("5"), QStringLiteral("6")};
        for (const QString &m : majors) {
            QTest::newRow(qPrintable(QStringLiteral("bullmq %1.x, wait to prioritized").arg(m)))
                << m << true;
            // 4.x re-adds a prioritized job to `prioritized` even at priority 0: that direction
            // exists from 5.x on.
            if (m != QLatin1String("4"))
                QTest::newRow(qPrintable(QStringLiteral("bullmq %1.x, prioritized to wait").arg(m)))
                    << m << false;
        }
    }
    void aPriorityChangeIsSeen()
    {
        QFETCH(QString, major);
        QFETCH(bool, intoPrioritized);
        Queue q(m_env, major,
                QStringLiteral("priority-%1-v%2")
                    .arg(intoPrioritized ? QStringLiteral("up") : QStringLiteral("down"), major));
        q.fill(kPageSize * 2);
        q.add(QStringLiteral("old-1"), QStringLiteral("{\"jobId\":\"legacy\"}"),
              intoPrioritized ? QStringLiteral("{}") : QStringLiteral("{\"priority\":3}"));
        q.add(QStringLiteral("other-prio"), kFiller, QStringLiteral("{\"priority\":2}"));
        q.fill(kPageSize);
        bool changed = false;
        const QString before =
            intoPrioritized ? QStringLiteral("prioritized") : QStringLiteral("wait");
        const auto verdicts = scan(q, [&](const QString &state, const ScanPage &page) {
            // Old order: prioritized before wait; now: wait, prioritized, wait again.
            if (changed || state != before || !page.done)
                return;
            changed = true;
            q.run({QStringLiteral("priority"), QStringLiteral("--id"), QStringLiteral("old-1"),
                   QStringLiteral("--priority"),
                   intoPrioritized ? QStringLiteral("5") : QStringLiteral("0")});
        });
        QVERIFY(changed);
        QCOMPARE(q.state(QStringLiteral("old-1")),
                 intoPrioritized ? QStringLiteral("prioritized") : QStringLiteral("waiting"));
        QVERIFY2(verdicts.value(QStringLiteral("legacy")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy"))));
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
    }

    // Case 3 within `prioritized`: a changePriority moves the legacy job from ahead of a reader
    // paging through the set to behind it. Every job placed in the set takes a new value of
    // the queue's priority counter, so the jobs that entered it during the read are read again
    // at once afterwards (prioritized.lua).
    void aPriorityChangeWithinPrioritizedIsSeen_data() { addMajors(); }
    void aPriorityChangeWithinPrioritizedIsSeen()
    {
        QFETCH(QString, major);
        Queue q(m_env, major, QStringLiteral("priority-within-v") + major);
        q.fill(kPageSize * 3, QStringLiteral("{\"priority\":5}"));
        q.add(QStringLiteral("old-1"), QStringLiteral("{\"jobId\":\"legacy\"}"),
              QStringLiteral("{\"priority\":5}")); // the last of its band: read last
        bool changed = false;
        ScanStats stats;
        const auto verdicts = scan(
            q,
            [&](const QString &state, const ScanPage &) {
                if (changed || state != QLatin1String("prioritized"))
                    return;
                changed = true;
                q.run({QStringLiteral("priority"), QStringLiteral("--id"), QStringLiteral("old-1"),
                       QStringLiteral("--priority"), QStringLiteral("1")});
            },
            &stats);
        QVERIFY(changed);
        QCOMPARE(q.state(QStringLiteral("old-1")), QStringLiteral("prioritized"));
        QVERIFY2(verdicts.value(QStringLiteral("legacy")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy"))));
        QVERIFY(stats.reprioritized >= 1);
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
    }

    // Cases 4, 8 and 9 (see the top of this file).
    void movedJobsAreFoundAndPlainJobsAreRead_data() { addMajors(); }
    void movedJobsAreFoundAndPlainJobsAreRead()
    {
        QFETCH(QString, major);
        Queue q(m_env, major, QStringLiteral("moved-v") + major);
        // A legacy-id job that failed (a real worker ran it), ordinary jobs whose data is valid
        // JSON naming no row, and a long wait list in front of where a retry puts the first.
        q.add(QStringLiteral("old-deep"),
              QStringLiteral("{\"jobId\":\"legacy_deep\",\"fail\":true}"));
        q.run({QStringLiteral("work"), QStringLiteral("--count"), QStringLiteral("1")});
        QCOMPARE(q.state(QStringLiteral("old-deep")), QStringLiteral("failed"));
        for (const char *data : {"\"just text\"", "[1,2,3]", "null", "42", "{\"other\":1}"})
            q.run({QStringLiteral("add"), QStringLiteral("--data"), QString::fromLatin1(data)});
        q.fill(60);

        int actives = 0;
        bool moved = false;
        ScanStats stats;
        const auto verdicts = scan(
            q,
            [&](const QString &state, const ScanPage &) {
                if (state != QLatin1String("active") || ++actives != 2)
                    return;
                // Every state has been read: now the library moves two legacy-id jobs.
                q.run(
                    {QStringLiteral("retry"), QStringLiteral("--id"), QStringLiteral("old-deep")});
                const QJsonObject big{{QStringLiteral("jobId"), QStringLiteral("legacy_big")},
                                      {QStringLiteral("blob"), QString(40000, QLatin1Char('x'))}};
                q.add(QStringLiteral("old-big"),
                      QString::fromUtf8(QJsonDocument(big).toJson(QJsonDocument::Compact)), kHour);
                moved = true;
            },
            &stats,
            {QStringLiteral("legacy_deep"), QStringLiteral("legacy_big"),
             QStringLiteral("true_orphan")},
            kPageSize); // run.listProbeLimit: the retried job lands far beyond it
        QVERIFY(moved);
        QCOMPARE(q.state(QStringLiteral("old-deep")), QStringLiteral("waiting"));
        QCOMPARE(stats.malformed, 0);
        QVERIFY2(verdicts.value(QStringLiteral("legacy_deep")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy_deep"))));
        QCOMPARE(verdicts.value(QStringLiteral("legacy_deep")).evidence.last().state,
                 QStringLiteral("waiting"));
        QVERIFY2(verdicts.value(QStringLiteral("legacy_big")).verdict == Verdict::Scheduled,
                 qPrintable(explain(verdicts, QStringLiteral("legacy_big"))));
        QCOMPARE(verdicts.value(QStringLiteral("legacy_big")).evidence.last().state,
                 QStringLiteral("delayed"));
        QVERIFY2(verdicts.value(QStringLiteral("true_orphan")).verdict == Verdict::Absent,
                 qPrintable(explain(verdicts, QStringLiteral("true_orphan"))));
    }
};

QTEST_GUILESS_MAIN(TestScanTraffic)
#include "test_scantraffic.moc"
