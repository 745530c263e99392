// `reclaim --daemon` against the sandbox: a run at start and one per interval, visible in
// /metrics and /readyz; JSON log lines per action; SIGTERM during a run stops between actions
// and releases the lock; SIGHUP refuses a broken configuration and applies a good one.
#include "config/connectionurl.h"
#include "daemonprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <csignal>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// The sample configuration with `run` settings patched; the URLs come from the environment.
QString writeConfig(const QTemporaryDir &dir, const QJsonObject &runPatch,
                    const QString &name = QStringLiteral("reclaim.json"))
{
    QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    if (!sample.open(QIODevice::ReadOnly))
        qFatal("no sample config");
    QJsonObject config = QJsonDocument::fromJson(sample.readAll()).object();
    QJsonObject run = config.value(QStringLiteral("run")).toObject();
    for (auto it = runPatch.begin(); it != runPatch.end(); ++it)
        run.insert(it.key(), it.value());
    config.insert(QStringLiteral("run"), run);
    const QString path = dir.filePath(name);
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    out.write(QJsonDocument(config).toJson());
    return path;
}

QProcessEnvironment sandboxDaemonEnv(const SandboxEnv &env)
{
    QProcessEnvironment e;
    e.insert(QStringLiteral("RECLAIM_PG_URL"), env.pgUrl);
    e.insert(QStringLiteral("RECLAIM_REDIS_URL"), env.redisUrl);
    return daemonEnvironment(e);
}

bool isRun(const QJsonObject &e, const QString &outcome = {})
{
    return e.value(QStringLiteral("event")).toString() == QLatin1String("run") &&
           (outcome.isEmpty() || e.value(QStringLiteral("outcome")).toString() == outcome);
}

// Manifest rows the reference incident expects an action for: "<domain>/<row id>".
QSet<QString> expectedActions(const SeededIncident &incident)
{
    QSet<QString> out;
    for (const QJsonValue &v : incident.rows()) {
        const QJsonObject row = v.toObject();
        if (!row.value(QStringLiteral("expectedAction")).isNull())
            out.insert(row.value(QStringLiteral("domain")).toString() + QLatin1Char('/') +
                       row.value(QStringLiteral("id")).toString());
    }
    return out;
}

qint64 lockExists(const SandboxEnv &env)
{
    RedisConnection r = redis(env);
    auto reply = r.command({QByteArrayLiteral("EXISTS"), QByteArrayLiteral("lock:job-recovery")});
    return reply ? reply->toInteger().value_or(-1) : -1;
}

qint64 rssKiB(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

QString describe(const DaemonProcess &d)
{
    return QString::fromUtf8(d.rawStderr().right(4000));
}

// Row locks held in one open PostgreSQL transaction (SELECT ... FOR UPDATE): a run's
// conditional write to one of these rows waits until release().
class RowLocks final
{
public:
    RowLocks(const SandboxEnv &env, const QList<QJsonObject> &rows)
        : m_name(QStringLiteral("rowlocks-%1").arg(quintptr(this)))
    {
        const auto pg = parsePostgresUrl(env.pgUrl);
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), m_name);
        db.setHostName(pg->host);
        db.setPort(pg->port);
        db.setUserName(pg->user);
        db.setPassword(pg->password);
        db.setDatabaseName(pg->database);
        if (!db.open() || !db.transaction())
            return;
        for (const QJsonObject &row : rows) {
            QSqlQuery q(db);
            q.prepare(QStringLiteral("SELECT id FROM \"%1\" WHERE id = ? FOR UPDATE")
                          .arg(row.value(QStringLiteral("table")).toString()));
            q.addBindValue(row.value(QStringLiteral("id")).toString());
            if (!q.exec() || !q.next())
                return;
        }
        m_held = true;
    }
    ~RowLocks()
    {
        release();
        QSqlDatabase::removeDatabase(m_name);
    }
    Q_DISABLE_COPY_MOVE(RowLocks)

    bool held() const { return m_held; }
    void release()
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        if (db.isOpen()) {
            db.rollback();
            db.close();
        }
        m_held = false;
    }

private:
    QString m_name;
    bool m_held = false;
};

QList<QJsonObject> rowsWithActions(const SeededIncident &incident)
{
    QList<QJsonObject> out;
    for (const QJsonValue &v : incident.rows())
        if (!v.toObject().value(QStringLiteral("expectedAction")).isNull())
            out << v.toObject();
    return out;
}

int statusChanged(const SandboxEnv &env, const QList<QJsonObject> &rows)
{
    int changed = 0;
    for (const QJsonObject &row : rows) {
        const auto status = sql(env,
                                QStringLiteral("SELECT status FROM \"%1\" WHERE id = ?")
                                    .arg(row.value(QStringLiteral("table")).toString()),
                                {row.value(QStringLiteral("id")).toString()});
        changed +=
            status.value(0).value(0).toString() != row.value(QStringLiteral("status")).toString();
    }
    return changed;
}

} // namespace

class TestDaemon : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void runsAtStartAndEveryInterval();
    void sigtermDuringARunStopsBetweenActionsAndReleasesTheLock();
    void sigtermDuringABatchFinishesTheBatchesInFlightThenStops();
    void aTickDuringARunIsSkipped();
    void sighupRefusesABrokenConfigAndAppliesAGoodOne();
    void redisDownKeepsTheDaemonRunning();
    void dryRunPlansEveryIntervalAndWritesNothing();
    void aFailedCheckIsLoggedAndKeepsReadyzFailingUntilFixed();

private:
    SandboxEnv m_env;
};

void TestDaemon::init()
{
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    resetSandbox(m_env);
    migrate(m_env);
}

void TestDaemon::runsAtStartAndEveryInterval()
{
    SeededIncident incident(m_env, 11, 1, false);
    QVERIFY(incident.ready());
    const QSet<QString> expected = expectedActions(incident);
    QVERIFY(expected.size() >= 5);

    QTemporaryDir dir;
    const QString config = writeConfig(dir, {});
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("2")}));
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       60000, 2),
             qPrintable(describe(d)));

    // The first run applied the incident's plan, every action exactly once, and logged each
    // action as one JSON object with its run id, domain, job id, kind and result.
    QVERIFY2(d.strayLines().isEmpty(), qPrintable(d.strayLines().join(QLatin1Char('\n'))));
    const QList<QJsonObject> runs = d.eventsOf(QStringLiteral("run"));
    const QString firstRun = runs.at(0).value(QStringLiteral("runId")).toString();
    const QString secondRun = runs.at(1).value(QStringLiteral("runId")).toString();
    QVERIFY(firstRun != secondRun);
    QSet<QString> applied;
    int firstRunActions = 0;
    for (const QJsonObject &a : d.eventsOf(QStringLiteral("action"))) {
        for (const char *key : {"runId", "domain", "jobId", "action", "result"})
            QVERIFY2(!a.value(QLatin1String(key)).toString().isEmpty(),
                     QJsonDocument(a).toJson(QJsonDocument::Compact).constData());
        QVERIFY(QStringList({QStringLiteral("requeue"), QStringLiteral("fail")})
                    .contains(a.value(QStringLiteral("action")).toString()));
        if (a.value(QStringLiteral("runId")).toString() == firstRun)
            ++firstRunActions;
        if (a.value(QStringLiteral("result")).toString() == QLatin1String("applied")) {
            const QString id = a.value(QStringLiteral("domain")).toString() + QLatin1Char('/') +
                               a.value(QStringLiteral("jobId")).toString();
            QVERIFY2(!applied.contains(id), qPrintable(QStringLiteral("applied twice: ") + id));
            applied.insert(id);
        }
    }
    QCOMPARE(applied, expected);
    QCOMPARE(firstRunActions, runs.at(0)
                                  .value(QStringLiteral("actions"))
                                  .toObject()
                                  .value(QStringLiteral("planned"))
                                  .toInt());
    // The second run came one interval later and found nothing left to do.
    QCOMPARE(runs.at(1)
                 .value(QStringLiteral("actions"))
                 .toObject()
                 .value(QStringLiteral("planned"))
                 .toInt(),
             0);
    const QList<QJsonObject> starts = d.eventsOf(QStringLiteral("run-start"));
    const qint64 gapMs =
        QDateTime::fromString(starts.at(0).value(QStringLiteral("time")).toString(),
                              Qt::ISODateWithMs)
            .msecsTo(QDateTime::fromString(starts.at(1).value(QStringLiteral("time")).toString(),
                                           Qt::ISODateWithMs));
    QVERIFY2(gapMs >= 1500 && gapMs <= 4000, qPrintable(QString::number(gapMs)));

    // /metrics reflects both runs.
    const quint16 port = d.metricsPort();
    const HttpResult metrics = httpGet(port, QStringLiteral("/metrics"));
    QCOMPARE(metrics.status, 200);
    QVERIFY2(
        metricValue(metrics.body, QStringLiteral("reclaim_runs_total{outcome=\"completed\"}")) >= 2,
        metrics.body.constData());
    double appliedTotal = 0;
    for (const char *kind : {"requeue", "fail"})
        appliedTotal += metricValue(
            metrics.body, QStringLiteral("reclaim_actions_total{kind=\"%1\",result=\"applied\"}")
                              .arg(QLatin1String(kind)));
    QCOMPARE(appliedTotal, double(expected.size()));
    QVERIFY(metricValue(metrics.body, QStringLiteral("reclaim_last_success_timestamp_seconds")) >
            double(QDateTime::currentSecsSinceEpoch() - 60));
    QVERIFY(metricValue(metrics.body, QStringLiteral("reclaim_run_duration_seconds_count")) >= 2);
    QVERIFY(metricValue(metrics.body, QStringLiteral("reclaim_redis_round_trips_total")) > 0);
    QVERIFY(metricValue(
                metrics.body,
                QStringLiteral("reclaim_candidates{domain=\"video\",verdict=\"scheduled\"}")) >= 0);
    QCOMPARE(httpGet(port, QStringLiteral("/healthz")).status, 200);
    const HttpResult ready = httpGet(port, QStringLiteral("/readyz"));
    QCOMPARE(ready.status, 200);

    // Idle between runs: resident memory stays small (reports are not kept).
    const qint64 rss = rssKiB(d.pid());
    qInfo("daemon idle RSS: %lld KiB", rss);
    QVERIFY2(rss > 0 && rss < 48 * 1024, qPrintable(QString::number(rss)));

    // No password ever reaches the log.
    const auto pg = parsePostgresUrl(m_env.pgUrl);
    QVERIFY(pg && !pg->password.isEmpty());
    QVERIFY(!d.rawStderr().contains(pg->password.toUtf8()));

    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(d.process().exitCode(), 0);
    QCOMPARE(lockExists(m_env), 0);
}

void TestDaemon::sigtermDuringARunStopsBetweenActionsAndReleasesTheLock()
{
    SeededIncident incident(m_env, 12, 1, false);
    QVERIFY(incident.ready());
    QVERIFY(!expectedActions(incident).isEmpty());
    QTemporaryDir dir;
    // Long Redis timeouts: the run waits out the pause below instead of calling Redis down.
    const QString config = writeConfig(dir, {{QStringLiteral("redisTimeoutMs"), 30000}});

    // Hold every Redis write: the daemon's first run starts and then waits on its lock
    // acquisition, so the SIGTERM below lands while that run is in flight.
    RedisWritePause pause(m_env);
    QVERIFY(pause.active());
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("60")}));
    QVERIFY2(QTest::qWaitFor([&] { return pause.blockedClients() >= 1; }, 15000),
             qPrintable(describe(d)));
    d.sendSignal(SIGTERM);
    QVERIFY2(d.waitForEvent(QStringLiteral("stop-requested"), 5000), qPrintable(describe(d)));
    QVERIFY(d.eventsOf(QStringLiteral("run")).isEmpty()); // in flight when the stop was asked for
    QElapsedTimer sinceRelease;
    sinceRelease.start();
    pause.release();

    QVERIFY2(d.waitForExit(15000), qPrintable(describe(d)));
    QCOMPARE(d.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(d.process().exitCode(), 0);
    QVERIFY2(sinceRelease.elapsed() < 10000, qPrintable(QString::number(sinceRelease.elapsed())));

    // The run went on to plan, applied nothing after the stop, and released its lock.
    const QList<QJsonObject> runs = d.eventsOf(QStringLiteral("run"));
    QCOMPARE(runs.size(), 1);
    const QJsonObject run = runs.first();
    QCOMPARE(run.value(QStringLiteral("outcome")).toString(), QStringLiteral("completed"));
    QCOMPARE(run.value(QStringLiteral("lock")).toString(), QStringLiteral("acquired"));
    QCOMPARE(run.value(QStringLiteral("released")).toBool(), true);
    QCOMPARE(run.value(QStringLiteral("stopRequested")).toBool(), true);
    const QJsonObject actions = run.value(QStringLiteral("actions")).toObject();
    QVERIFY(actions.value(QStringLiteral("planned")).toInt() > 0);
    QCOMPARE(actions.value(QStringLiteral("pending")).toInt(),
             actions.value(QStringLiteral("planned")).toInt());
    QVERIFY(!actions.contains(QStringLiteral("applied")));
    QCOMPARE(lockExists(m_env), 0);
    QCOMPARE(statusChanged(m_env, rowsWithActions(incident)), 0);
}

void TestDaemon::sighupRefusesABrokenConfigAndAppliesAGoodOne()
{
    QTemporaryDir dir;
    const QString config = writeConfig(dir, {});
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("2")}));
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       30000),
             qPrintable(describe(d)));
    const quint16 port = d.metricsPort();

    // A broken file: refused and logged; the daemon keeps running on the old configuration.
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{ \"run\": { \"policy\": ");
    }
    const qsizetype before = d.events().size();
    d.sendSignal(SIGHUP);
    QVERIFY2(d.waitForEvent(QStringLiteral("config-refused"), 5000, 1, before),
             qPrintable(describe(d)));
    const qsizetype refusedAt = d.events().size();
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       10000, 1, refusedAt),
             qPrintable(describe(d)));
    QCOMPARE(d.process().state(), QProcess::Running);
    QCOMPARE(httpGet(port, QStringLiteral("/readyz")).status, 200);
    QCOMPARE(metricValue(httpGet(port, QStringLiteral("/metrics")).body,
                         QStringLiteral("reclaim_config_reloads_total{result=\"refused\"}")),
             1.0);
    QVERIFY(d.eventsOf(QStringLiteral("config-reloaded")).isEmpty());

    // A good file: applied from the next run (here: policy observe).
    writeConfig(dir, {{QStringLiteral("policy"), QStringLiteral("observe")}});
    const qsizetype beforeGood = d.events().size();
    d.sendSignal(SIGHUP);
    QVERIFY2(d.waitForEvent(QStringLiteral("config-reloaded"), 5000, 1, beforeGood),
             qPrintable(describe(d)));
    QCOMPARE(d.eventsOf(QStringLiteral("config-reloaded"))
                 .first()
                 .value(QStringLiteral("policy"))
                 .toString(),
             QStringLiteral("observe"));
    const qsizetype reloadedAt = d.events().size();
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       10000, 1, reloadedAt),
             qPrintable(describe(d)));
    QJsonObject nextStart;
    QJsonObject nextRun;
    for (qsizetype i = reloadedAt; i < d.events().size(); ++i) {
        const QJsonObject &e = d.events().at(i);
        if (nextStart.isEmpty() &&
            e.value(QStringLiteral("event")).toString() == QLatin1String("run-start"))
            nextStart = e;
        if (nextRun.isEmpty() && isRun(e))
            nextRun = e;
    }
    QCOMPARE(nextStart.value(QStringLiteral("policy")).toString(), QStringLiteral("observe"));
    QCOMPARE(nextRun.value(QStringLiteral("execute")).toBool(), false);

    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 0);
}

void TestDaemon::redisDownKeepsTheDaemonRunning()
{
    // PostgreSQL is up, Redis is a port nobody listens on: every run is skipped, the process stays.
    QTemporaryDir dir;
    const QString config = writeConfig(dir, {{QStringLiteral("redisTimeoutMs"), 500}});
    QProcessEnvironment e;
    e.insert(QStringLiteral("RECLAIM_PG_URL"), m_env.pgUrl);
    e.insert(QStringLiteral("RECLAIM_REDIS_URL"), QStringLiteral("redis://127.0.0.1:1/0"));
    DaemonProcess d(daemonEnvironment(e));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("1")}));
    QVERIFY2(
        d.waitFor(
            [](const QJsonObject &ev) { return isRun(ev, QStringLiteral("skipped-unreachable")); },
            20000, 2),
        qPrintable(describe(d)));
    QCOMPARE(d.process().state(), QProcess::Running);
    const HttpResult ready = httpGet(d.metricsPort(), QStringLiteral("/readyz"));
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.contains("skipped-unreachable"), ready.body.constData());
    QVERIFY(metricValue(httpGet(d.metricsPort(), QStringLiteral("/metrics")).body,
                        QStringLiteral("reclaim_runs_total{outcome=\"skipped-unreachable\"}")) >=
            2);
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 0);
}

void TestDaemon::aFailedCheckIsLoggedAndKeepsReadyzFailingUntilFixed()
{
    // An evicting Redis fails the preflight: the daemon still runs (a run completes), but logs the
    // failed item and /readyz says why; once the policy is fixed the check, repeated each
    // interval while it fails, passes and /readyz recovers.
    const auto setPolicy = [this](const QByteArray &policy) {
        RedisConnection r = redis(m_env);
        return r.command({"CONFIG", "SET", "maxmemory-policy", policy}).hasValue();
    };
    QVERIFY(setPolicy("allkeys-lru"));
    auto restore = qScopeGuard([&] { setPolicy("noeviction"); });
    QTemporaryDir dir;
    const QString config = writeConfig(dir, {});
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start({QStringLiteral("--config"), config, QStringLiteral("--interval"),
                     QStringLiteral("1"), QStringLiteral("--dry-run")}));
    const auto checkItem = [](const QJsonObject &e) {
        return e.value(QStringLiteral("event")).toString() == QLatin1String("check-item") &&
               e.value(QStringLiteral("id")).toString() ==
                   QLatin1String("redis.maxmemory-policy") &&
               e.value(QStringLiteral("status")).toString() == QLatin1String("fail");
    };
    QVERIFY2(d.waitFor(checkItem, 20000), qPrintable(describe(d)));
    const QJsonObject item = d.eventsOf(QStringLiteral("check-item")).first();
    QVERIFY(item.value(QStringLiteral("fix")).toString().contains(QLatin1String("noeviction")));
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       20000),
             qPrintable(describe(d)));
    const HttpResult failing = httpGet(d.metricsPort(), QStringLiteral("/readyz"));
    QCOMPARE(failing.status, 503);
    QVERIFY2(failing.body.contains("preflight check failed: redis.maxmemory-policy"),
             failing.body.constData());

    QVERIFY(setPolicy("noeviction"));
    const qsizetype from = d.events().size();
    const auto checkPassed = [](const QJsonObject &e) {
        return e.value(QStringLiteral("event")).toString() == QLatin1String("check") &&
               e.value(QStringLiteral("result")).toString() != QLatin1String("fail");
    };
    QVERIFY2(d.waitFor(checkPassed, 20000, 1, from), qPrintable(describe(d)));
    QTRY_COMPARE_WITH_TIMEOUT(httpGet(d.metricsPort(), QStringLiteral("/readyz")).status, 200,
                              10000);
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 0);
}

void TestDaemon::dryRunPlansEveryIntervalAndWritesNothing()
{
    SeededIncident incident(m_env, 13, 1, false);
    QVERIFY(incident.ready());
    const QSet<QString> expected = expectedActions(incident);
    QVERIFY(!expected.isEmpty());
    QTemporaryDir dir;
    const QString config = writeConfig(dir, {});
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start({QStringLiteral("--config"), config, QStringLiteral("--interval"),
                     QStringLiteral("2"), QStringLiteral("--dry-run")}));
    QVERIFY2(d.waitFor([](const QJsonObject &e) { return isRun(e, QStringLiteral("completed")); },
                       30000, 2),
             qPrintable(describe(d)));
    QCOMPARE(d.eventsOf(QStringLiteral("started")).first().value(QStringLiteral("dryRun")).toBool(),
             true);
    // Both runs plan the same actions (nothing changed in between) and apply none of them.
    for (const QJsonObject &run : d.eventsOf(QStringLiteral("run")).mid(0, 2)) {
        QCOMPARE(run.value(QStringLiteral("dryRun")).toBool(), true);
        QCOMPARE(run.value(QStringLiteral("execute")).toBool(), false);
        QCOMPARE(run.value(QStringLiteral("lock")).toString(), QStringLiteral("not-attempted"));
        const QJsonObject actions = run.value(QStringLiteral("actions")).toObject();
        QCOMPARE(actions.value(QStringLiteral("planned")).toInt(), int(expected.size()));
        QCOMPARE(actions.value(QStringLiteral("pending")).toInt(), int(expected.size()));
    }
    QSet<QString> planned;
    for (const QJsonObject &a : d.eventsOf(QStringLiteral("action"))) {
        QCOMPARE(a.value(QStringLiteral("result")).toString(), QStringLiteral("pending"));
        planned.insert(a.value(QStringLiteral("domain")).toString() + QLatin1Char('/') +
                       a.value(QStringLiteral("jobId")).toString());
    }
    QCOMPARE(planned, expected);
    QCOMPARE(lockExists(m_env), 0); // a dry run does not even take the lock
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 0);
}

void TestDaemon::sigtermDuringABatchFinishesTheBatchesInFlightThenStops()
{
    SeededIncident incident(m_env, 14, 1, false);
    QVERIFY(incident.ready());
    const QList<QJsonObject> rows = rowsWithActions(incident);
    QVERIFY(rows.size() >= 2);
    QTemporaryDir dir;
    // Long PostgreSQL timeouts: the run's write waits on our row locks instead of timing out.
    const QString config = writeConfig(dir, {{QStringLiteral("postgresTimeoutMs"), 30000}});

    // Every row the run will write is locked, so its first action waits in flight.
    RowLocks locks(m_env, rows);
    QVERIFY(locks.held());
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("60")}));
    const QString waiting =
        QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE "
                       "application_name = 'reclaim' AND wait_event_type = 'Lock'");
    QVERIFY2(
        QTest::qWaitFor([&] { return sql(m_env, waiting).value(0).value(0).toInt() >= 1; }, 30000),
        qPrintable(describe(d)));

    // Mid-run: the recovery lock is held, and /metrics says so.
    QCOMPARE(lockExists(m_env), 1);
    QCOMPARE(metricValue(httpGet(d.metricsPort(), QStringLiteral("/metrics")).body,
                         QStringLiteral("reclaim_lock_held")),
             1.0);

    d.sendSignal(SIGTERM);
    QVERIFY2(d.waitForEvent(QStringLiteral("stop-requested"), 5000), qPrintable(describe(d)));
    locks.release();
    QVERIFY2(d.waitForExit(15000), qPrintable(describe(d)));
    QCOMPARE(d.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(d.process().exitCode(), 0);

    // The batches in flight finished: the first domain's (in configuration order), whose rows
    // were being written, and the second domain's, whose enqueues had gone out before that
    // write began (a batch's enqueues run while the previous batch is written). No other batch
    // started; the lock was released.
    const QStringList order{QStringLiteral("slide"), QStringLiteral("video"),
                            QStringLiteral("document"), QStringLiteral("image"),
                            QStringLiteral("narration")};
    QList<qsizetype> domainsWithActions;
    for (const QJsonObject &row : rows) {
        const qsizetype at = order.indexOf(row.value(QStringLiteral("domain")).toString());
        QVERIFY(at >= 0);
        if (!domainsWithActions.contains(at))
            domainsWithActions << at;
    }
    std::sort(domainsWithActions.begin(), domainsWithActions.end());
    QVERIFY2(domainsWithActions.size() >= 3, "the incident needs actions in a third domain");
    int inFlight = 0; // the actions of the first two domains
    for (const QJsonObject &row : rows) {
        const qsizetype at = order.indexOf(row.value(QStringLiteral("domain")).toString());
        inFlight += at == domainsWithActions.at(0) || at == domainsWithActions.at(1);
    }
    const QJsonObject run = d.eventsOf(QStringLiteral("run")).value(0);
    QCOMPARE(run.value(QStringLiteral("stopRequested")).toBool(), true);
    QCOMPARE(run.value(QStringLiteral("released")).toBool(), true);
    const QJsonObject actions = run.value(QStringLiteral("actions")).toObject();
    QCOMPARE(actions.value(QStringLiteral("planned")).toInt(), int(rows.size()));
    QCOMPARE(actions.value(QStringLiteral("applied")).toInt(), inFlight);
    QCOMPARE(actions.value(QStringLiteral("pending")).toInt(), int(rows.size()) - inFlight);
    QCOMPARE(statusChanged(m_env, rows), inFlight);
    QCOMPARE(lockExists(m_env), 0);
}

void TestDaemon::aTickDuringARunIsSkipped()
{
    SeededIncident incident(m_env, 15, 1, false);
    QVERIFY(incident.ready());
    const QList<QJsonObject> rows = rowsWithActions(incident);
    QVERIFY(!rows.isEmpty());
    QTemporaryDir dir;
    const QString config = writeConfig(dir, {{QStringLiteral("postgresTimeoutMs"), 30000}});

    // The first run waits on our row locks for several intervals.
    RowLocks locks(m_env, rows);
    QVERIFY(locks.held());
    DaemonProcess d(sandboxDaemonEnv(m_env));
    QVERIFY(d.start(
        {QStringLiteral("--config"), config, QStringLiteral("--interval"), QStringLiteral("1")}));
    QVERIFY2(d.waitForEvent(QStringLiteral("tick-skipped"), 15000, 3), qPrintable(describe(d)));
    QCOMPARE(d.eventsOf(QStringLiteral("run-start")).size(), 1); // never a second run meanwhile
    QVERIFY(d.eventsOf(QStringLiteral("run")).isEmpty());

    locks.release();
    QVERIFY2(d.waitForEvent(QStringLiteral("run-start"), 15000, 2), qPrintable(describe(d)));
    const QList<QJsonObject> runs = d.eventsOf(QStringLiteral("run"));
    QCOMPARE(runs.first().value(QStringLiteral("outcome")).toString(), QStringLiteral("completed"));
    QCOMPARE(runs.first()
                 .value(QStringLiteral("actions"))
                 .toObject()
                 .value(QStringLiteral("applied"))
                 .toInt(),
             int(rows.size()));
    // Ticks resumed only after the first run had finished.
    qsizetype firstRunAt = -1;
    qsizetype secondStartAt = -1;
    int starts = 0;
    for (qsizetype i = 0; i < d.events().size(); ++i) {
        const QString event = d.events().at(i).value(QStringLiteral("event")).toString();
        if (event == QLatin1String("run") && firstRunAt < 0)
            firstRunAt = i;
        if (event == QLatin1String("run-start") && ++starts == 2)
            secondStartAt = i;
    }
    QVERIFY(firstRunAt >= 0 && secondStartAt > firstRunAt);
    d.sendSignal(SIGTERM);
    QVERIFY(d.waitForExit(10000));
    QCOMPARE(d.process().exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestDaemon)
#include "test_daemon.moc"
