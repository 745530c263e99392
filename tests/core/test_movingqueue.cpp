// SPEC §1 on a queue that moves while it is scanned (#13 item 1): a 50,000-job queue that real
// bullmq workers (concurrency 24) take from, promote into and complete from the whole time, with
// healthy candidates in every state — cycling through active, delayed and wait, prioritized,
// delayed for an hour, flow parents in waiting-children, held by a worker, in a paused queue —
// and true orphans as the control. Over 20 runs no healthy candidate is ever ABSENT, and the
// orphans are, so the test would notice a scan that gives up on everything. Since #28 the
// traffic also has retries (candidates failing and retried to the head of wait for ever,
// fillers failing once), a pauser (pause 150 ms, resume, every 3 s) and a prioritizer
// (changePriority of a cycling, priority or retrying legacy candidate every 200 ms), and the
// test reports how many scans ended UNKNOWN for anyone.
#include "service/engine.h"
#include "support/sandboxenv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kRuns = 20;
constexpr int kQueueSize = 50000;
const QString kQueue = QStringLiteral("churn");

RunRequest dryRun()
{
    RunRequest r;
    r.trigger = QStringLiteral("test");
    r.dryRun = true;
    r.actor = Actor{QStringLiteral("test"), QStringLiteral("test-host"), QStringLiteral("t"), {}};
    return r;
}

} // namespace

class TestMovingQueue : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    QProcess m_churn;
    QHash<QString, QString> m_kindOf; // healthy row id → kind
    QStringList m_orphans;

    bool waitForLine(const QByteArray &prefix, QByteArray &line, int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs && m_churn.state() == QProcess::Running) {
            while (m_churn.canReadLine()) {
                line = m_churn.readLine().trimmed();
                if (line.startsWith(prefix))
                    return true;
            }
            m_churn.waitForReadyRead(200);
        }
        return false;
    }

    qint64 redisNumber(const QByteArray &command, const QByteArray &key)
    {
        auto r = redis(m_env).command({command, key});
        return r ? r->toInteger().value_or(-1) : -1;
    }

    ReclaimConfig config() const
    {
        ReclaimConfig c = sampleConfig(m_env);
        DomainConfig d;
        d.name = QStringLiteral("churn");
        d.table = QStringLiteral("ChurnJob");
        d.queues = {kQueue, kQueue + QStringLiteral("-paused")};
        d.jobIdTemplate = kQueue + QStringLiteral("-{id}");
        c.domains = {d};
        return c;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
        sql(m_env, QStringLiteral("DROP TABLE IF EXISTS \"ChurnJob\""));
        sql(m_env, QStringLiteral("CREATE TABLE \"ChurnJob\" (id text PRIMARY KEY, status text NOT "
                                  "NULL, \"updatedAt\" timestamp(3) NOT NULL)"));

        m_churn.setProcessEnvironment(m_env.processEnvironment());
        m_churn.setWorkingDirectory(QStringLiteral(RECLAIM_SOURCE_DIR));
        m_churn.start(QStringLiteral(RECLAIM_NODE),
                      {QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/churn.js"),
                       QStringLiteral("--queue"), kQueue, QStringLiteral("--size"),
                       QString::number(kQueueSize), QStringLiteral("--concurrency"),
                       QStringLiteral("24"), QStringLiteral("--candidates"), QStringLiteral("8"),
                       QStringLiteral("--pause-every"), QStringLiteral("3000"),
                       QStringLiteral("--prioritize-every"), QStringLiteral("200")});
        QVERIFY(m_churn.waitForStarted());
        QByteArray ready;
        QVERIFY2(waitForLine("READY ", ready, 180000), m_churn.readAllStandardError().constData());
        const QJsonObject rows =
            QJsonDocument::fromJson(ready.mid(6)).object().value(QStringLiteral("rows")).toObject();
        for (auto it = rows.constBegin(); it != rows.constEnd(); ++it)
            for (const QJsonValue &id : it.value().toArray())
                m_kindOf.insert(id.toString(), it.key());
        QCOMPARE(rows.size(), 8);
        for (int i = 1; i <= 10; ++i)
            m_orphans << QStringLiteral("orphan_%1").arg(i);
        QStringList all = m_kindOf.keys() + m_orphans;
        for (const QString &id : all)
            sql(m_env,
                QStringLiteral("INSERT INTO \"ChurnJob\" VALUES (?, 'QUEUED', now() AT TIME ZONE "
                               "'UTC' - interval '2 hours')"),
                {id});
    }

    void cleanupTestCase()
    {
        if (m_churn.state() == QProcess::Running) {
            m_churn.terminate();
            if (!m_churn.waitForFinished(20000))
                m_churn.kill();
        }
    }

    void noHealthyCandidateIsEverAbsent()
    {
        const QByteArray idKey = QStringLiteral("bull:%1:id").arg(kQueue).toUtf8();
        const qint64 addedBefore = redisNumber(QByteArrayLiteral("GET"), idKey);
        Engine engine(config());
        int healthyAbsent = 0;
        int healthyScheduled = 0;
        int healthyUnknown = 0;
        int orphanAbsent = 0;
        int unknownScans = 0; // runs in which any candidate ended UNKNOWN
        int rereads = 0;
        int queueRereads = 0;
        qint64 fewestJobsRead = -1;
        QStringList problems;
        QStringList orphanProblems;
        QMap<QString, int> scheduledBy; // "kind/state" → sightings, to show every state was met
        for (int run = 0; run < kRuns; ++run) {
            const RunReport report = engine.run(dryRun());
            QCOMPARE(report.outcome, RunReport::Outcome::Completed);
            QCOMPARE(report.domains.size(), 1);
            const DomainReport &d = report.domains.first();
            QVERIFY2(!d.candidateError, qPrintable(d.candidateError.value_or(QString())));
            fewestJobsRead =
                fewestJobsRead < 0 ? d.scan.jobsRead : qMin(fewestJobsRead, d.scan.jobsRead);
            unknownScans += d.count(Verdict::Unknown) > 0 ? 1 : 0;
            rereads += d.scan.rereads;
            queueRereads += d.scan.queueRereads;
            for (const CandidateVerdict &v : d.candidates) {
                const QString id = v.candidate.id;
                if (m_orphans.contains(id)) {
                    if (v.verdict == Verdict::Absent)
                        ++orphanAbsent;
                    else
                        orphanProblems << QStringLiteral("run %1: %2 %3: %4")
                                              .arg(run)
                                              .arg(id, verdictName(v.verdict), v.unknownReason);
                    continue;
                }
                const QString kind = m_kindOf.value(id);
                if (v.verdict == Verdict::Absent) {
                    ++healthyAbsent;
                    problems << QStringLiteral("run %1: %2 (%3) ABSENT: %4")
                                    .arg(run)
                                    .arg(id, kind, v.summary());
                } else if (v.verdict == Verdict::Unknown) {
                    ++healthyUnknown;
                    problems << QStringLiteral("run %1: %2 (%3) UNKNOWN: %4")
                                    .arg(run)
                                    .arg(id, kind, v.unknownReason);
                } else {
                    ++healthyScheduled;
                    for (const Sighting &s : v.evidence)
                        if (s.runnable() || s.heldByWorker())
                            ++scheduledBy[kind + QLatin1Char('/') + s.state];
                }
            }
        }
        const qint64 added = redisNumber(QByteArrayLiteral("GET"), idKey) - addedBefore;
        qInfo("%d runs: healthy %d scheduled, %d unknown, %d absent; orphans %d of %d absent; "
              "fewest jobs read by one scan %lld; %lld jobs added meanwhile; %d scans ended "
              "UNKNOWN for someone; %d states and %d queues read again",
              kRuns, healthyScheduled, healthyUnknown, healthyAbsent, orphanAbsent,
              int(m_orphans.size()) * kRuns, fewestJobsRead, added, unknownScans, rereads,
              queueRereads);
        // The traffic really ran: retries, pauses and priority changes during the scans.
        QJsonObject traffic;
        while (m_churn.canReadLine() || m_churn.waitForReadyRead(1500)) {
            const QByteArray line = m_churn.readLine().trimmed();
            if (line.startsWith("STATS "))
                traffic = QJsonDocument::fromJson(line.mid(6)).object();
            if (!m_churn.canReadLine() && traffic.contains(QStringLiteral("pauses")))
                break;
        }
        qInfo("traffic: %s", QJsonDocument(traffic).toJson(QJsonDocument::Compact).constData());
        for (const char *what : {"retries", "pauses", "priorityChanges"})
            QVERIFY2(traffic.value(QLatin1String(what)).toInt() > 0, what);
        for (auto it = scheduledBy.constBegin(); it != scheduledBy.constEnd(); ++it)
            qInfo("  seen %s: %d", qPrintable(it.key()), it.value());
        QVERIFY2(healthyAbsent == 0, qPrintable(problems.join(QLatin1Char('\n'))));
        // The queue really moved: workers completed (and the producer replaced) thousands of jobs.
        QVERIFY2(added > 5000, qPrintable(QString::number(added)));
        // Every scan read the whole queue (the orphans are never found), and it mostly concluded:
        // a scan that gave up on everything would pass the ABSENT check above by saying UNKNOWN.
        QVERIFY2(fewestJobsRead >= kQueueSize / 2, qPrintable(QString::number(fewestJobsRead)));
        QVERIFY2(healthyUnknown * 10 <= healthyScheduled + healthyUnknown,
                 qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY2(orphanAbsent * 10 >= int(m_orphans.size()) * kRuns * 9,
                 qPrintable(orphanProblems.join(QLatin1Char('\n'))));
        // Candidates were met in every kind of state (the mix the queue is built to have).
        for (const char *state :
             {"active", "delayed", "waiting", "prioritized", "paused", "waiting-children"}) {
            bool met = false;
            for (auto it = scheduledBy.constBegin(); it != scheduledBy.constEnd(); ++it)
                met = met || it.key().endsWith(QLatin1Char('/') + QLatin1String(state));
            QVERIFY2(met, state);
        }
    }
};

QTEST_GUILESS_MAIN(TestMovingQueue)
#include "test_movingqueue.moc"
