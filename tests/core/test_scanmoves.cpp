// #28 cases 4, 8 and 9 against a real redis-server, with each supported bullmq major (4.x, 5.x,
// 6.x) doing the moving: a dry run whose scan is interrupted, right after it has read the last
// state of the queue, by the library itself — a failed legacy-id job retried to the head of a
// `wait` list longer than the probe walks (case 4), a legacy-id job with a 40 KB payload added
// (case 8) — on a queue that also holds ordinary jobs whose data is valid JSON naming no row
// (case 9). Both moved jobs are SCHEDULED, and the true orphan is ABSENT. Before the fix the
// first was ABSENT (the "list-unresolved" answer was dropped as gone), the second's payload was
// cut at 16 KiB and unreadable, and the ordinary jobs made the orphan UNKNOWN on every run.
#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kFillers = 60;
constexpr int kWalkLimit = 10; // run.listProbeLimit: the promoted job lands far beyond it

QStringList scenarioArgs(const SandboxEnv &env, const QString &major, const QString &queue)
{
    return {QStringLiteral("--bullmq"),
            QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/bullmq-versions/v") + major,
            QStringLiteral("--redis"),
            env.redisUrl,
            QStringLiteral("--prefix"),
            QStringLiteral("bull"),
            QStringLiteral("--queue"),
            queue};
}

void scenario(const SandboxEnv &env, const QString &major, const QString &queue,
              const QStringList &command)
{
    runNode(env, QStringLiteral("bullmq-versions/scenario.js"),
            scenarioArgs(env, major, queue) + command, 60000);
}

QString stateOf(const SandboxEnv &env, const QString &major, const QString &queue,
                const QString &id)
{
    const QByteArray out =
        runNode(env, QStringLiteral("bullmq-versions/scenario.js"),
                scenarioArgs(env, major, queue) +
                    QStringList{QStringLiteral("state"), QStringLiteral("--id"), id},
                60000);
    return QJsonDocument::fromJson(out.trimmed().split('\n').last())
        .object()
        .value(QStringLiteral("state"))
        .toString();
}

QString json(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// The real queue inspector, with a hook after every scan page (the library moves jobs there).
class ScanHook final : public QueueInspector
{
public:
    using Hook = std::function<void(const QString &queue, const QString &state)>;
    ScanHook(QueueInspector &inner, Hook hook) : m_inner(inner), m_hook(std::move(hook)) {}

    using QueueInspector::probe;
    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs,
                                                PayloadSize payload) override
    {
        return m_inner.probe(jobs, payload);
    }
    Expected<QSet<QString>, RedisError> listMembers(const QString &p, const QString &q,
                                                    const QString &l) override
    {
        return m_inner.listMembers(p, q, l);
    }
    Expected<ScanPage, RedisError> scanPage(const QString &p, const QString &q, const QString &s,
                                            const ScanCursor &from, int count) override
    {
        auto page = m_inner.scanPage(p, q, s, from, count);
        m_hook(q, s);
        return page;
    }
    Expected<QueueMoves, RedisError> movesSince(const QString &p, const QString &q,
                                                const QString &since) override
    {
        return m_inner.movesSince(p, q, since);
    }
    Expected<PrioritizedSince, RedisError> prioritizedSince(const QString &p, const QString &q,
                                                            const QString &mark) override
    {
        return m_inner.prioritizedSince(p, q, mark);
    }
    qint64 roundTrips() const override { return m_inner.roundTrips(); }

private:
    QueueInspector &m_inner;
    Hook m_hook;
};

} // namespace

class TestScanMoves : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
    }

    void movedJobsAreFoundAndPlainJobsAreRead_data()
    {
        QTest::addColumn<QString>("major");
        QTest::newRow("bullmq 4.x") << QStringLiteral("4");
        QTest::newRow("bullmq 5.x") << QStringLiteral("5");
        QTest::newRow("bullmq 6.x") << QStringLiteral("6");
    }
    void movedJobsAreFoundAndPlainJobsAreRead()
    {
        QFETCH(QString, major);
        const QString queue = QStringLiteral("scanmoves-v") + major;
        const QString table = QStringLiteral("ScanMovesV") + major;
        sql(m_env, QStringLiteral("DROP TABLE IF EXISTS \"%1\"").arg(table));
        sql(m_env, QStringLiteral("CREATE TABLE \"%1\" (id text PRIMARY KEY, status text NOT "
                                  "NULL, \"updatedAt\" timestamp(3) NOT NULL)")
                       .arg(table));
        for (const char *id : {"legacy_deep", "legacy_big", "true_orphan"})
            sql(m_env,
                QStringLiteral("INSERT INTO \"%1\" VALUES (?, 'QUEUED', now() AT TIME ZONE "
                               "'UTC' - interval '2 hours')")
                    .arg(table),
                {QString::fromLatin1(id)});

        // A legacy-id job that failed (a real worker ran it), and a long wait list in front of
        // where a retry puts it back.
        scenario(m_env, major, queue,
                 {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("old-deep"),
                  QStringLiteral("--data"),
                  QStringLiteral("{\"jobId\":\"legacy_deep\",\"fail\":true}")});
        scenario(m_env, major, queue,
                 {QStringLiteral("work"), QStringLiteral("--count"), QStringLiteral("1")});
        QCOMPARE(stateOf(m_env, major, queue, QStringLiteral("old-deep")),
                 QStringLiteral("failed"));
        // Ordinary jobs whose data is valid JSON naming no row (BullMQ accepts any JSON).
        for (const char *data : {"\"just text\"", "[1,2,3]", "null", "42", "{\"other\":1}"})
            scenario(m_env, major, queue,
                     {QStringLiteral("add"), QStringLiteral("--data"), QString::fromLatin1(data)});
        scenario(m_env, major, queue,
                 {QStringLiteral("bulk"), QStringLiteral("--count"), QString::number(kFillers),
                  QStringLiteral("--data"), QStringLiteral("{\"jobId\":\"someone_else\"}")});

        ReclaimConfig c = sampleConfig(m_env);
        DomainConfig d;
        d.name = QStringLiteral("scanmoves");
        d.table = table;
        d.queues = {queue};
        d.jobIdTemplate = queue + QStringLiteral("-{id}");
        c.domains = {d};
        c.run.listProbeLimit = kWalkLimit;

        RedisAdapters ports(c.redis, c.run);
        int actives = 0;
        bool moved = false;
        ScanHook inspector(ports.queue, [&](const QString &q, const QString &state) {
            if (q != queue || state != QLatin1String("active") || ++actives != 2)
                return;
            // Every state has been read: now the library moves two legacy-id jobs.
            scenario(m_env, major, queue,
                     {QStringLiteral("retry"), QStringLiteral("--id"), QStringLiteral("old-deep")});
            QJsonObject big{{QStringLiteral("jobId"), QStringLiteral("legacy_big")},
                            {QStringLiteral("blob"), QString(40000, QLatin1Char('x'))}};
            scenario(m_env, major, queue,
                     {QStringLiteral("add"), QStringLiteral("--id"), QStringLiteral("old-big"),
                      QStringLiteral("--data"), json(big), QStringLiteral("--opts"),
                      QStringLiteral("{\"delay\":3600000}")});
            moved = true;
        });
        auto store = PgJobStore::open(c, true);
        QVERIFY2(store, qPrintable(store ? QString() : store.error().message));
        RunRequest request;
        request.trigger = QStringLiteral("test");
        request.dryRun = true;
        request.actor =
            Actor{QStringLiteral("test"), QStringLiteral("scanmoves"), QStringLiteral("t"), {}};
        const RunReport report =
            RecoveryRun(c, store->get(), {}, inspector, ports.queue, ports.lock).run(request);
        QVERIFY(moved);
        QCOMPARE(stateOf(m_env, major, queue, QStringLiteral("old-deep")),
                 QStringLiteral("waiting"));
        QCOMPARE(report.domains.size(), 1);
        const DomainReport &dr = report.domains.first();
        QCOMPARE(dr.scan.malformed, 0);
        QHash<QString, CandidateVerdict> byId;
        for (const CandidateVerdict &v : dr.candidates)
            byId.insert(v.candidate.id, v);
        QCOMPARE(byId.size(), 3);
        const auto explain = [&](const QString &id) {
            const CandidateVerdict &v = byId[id];
            return QStringLiteral("%1 %2: %3").arg(id, verdictName(v.verdict), v.summary());
        };
        QVERIFY2(byId[QStringLiteral("legacy_deep")].verdict == Verdict::Scheduled,
                 qPrintable(explain(QStringLiteral("legacy_deep"))));
        QCOMPARE(byId[QStringLiteral("legacy_deep")].evidence.last().state,
                 QStringLiteral("waiting"));
        QVERIFY2(byId[QStringLiteral("legacy_big")].verdict == Verdict::Scheduled,
                 qPrintable(explain(QStringLiteral("legacy_big"))));
        QCOMPARE(byId[QStringLiteral("legacy_big")].evidence.last().state,
                 QStringLiteral("delayed"));
        QVERIFY2(byId[QStringLiteral("true_orphan")].verdict == Verdict::Absent,
                 qPrintable(explain(QStringLiteral("true_orphan"))));
    }
};

QTEST_GUILESS_MAIN(TestScanMoves)
#include "test_scanmoves.moc"
