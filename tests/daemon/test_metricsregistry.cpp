// The metrics registry: the exact exposition text for synthetic runs, label escaping, and the
// structure Prometheus needs (HELP and TYPE before every family's samples).
#include "metrics/metricsregistry.h"

#include <QRegularExpression>
#include <QTest>

using namespace reclaim;

namespace {

CandidateVerdict verdict(const QString &id, Verdict v)
{
    CandidateVerdict c;
    c.candidate.id = id;
    c.verdict = v;
    return c;
}

Action action(const QString &domain, const QString &row, ActionKind kind, ActionResult result)
{
    Action a;
    a.domain = domain;
    a.rowId = row;
    a.id = domain + QLatin1Char('/') + row;
    a.kind = kind;
    a.result = result;
    return a;
}

const QDateTime kStart = QDateTime(QDate(2024, 3, 1), QTime(12, 0), Qt::UTC);

RunReport completedRun()
{
    RunReport r;
    r.runId = QStringLiteral("r1");
    r.trigger = QStringLiteral("daemon");
    r.outcome = RunReport::Outcome::Completed;
    r.startedAt = kStart;
    r.finishedAt = kStart.addMSecs(1500);
    DomainReport video;
    video.name = QStringLiteral("video");
    video.candidates = {verdict(QStringLiteral("v1"), Verdict::Absent),
                        verdict(QStringLiteral("v2"), Verdict::Absent),
                        verdict(QStringLiteral("v3"), Verdict::Scheduled),
                        verdict(QStringLiteral("v4"), Verdict::Unknown)};
    DomainReport image;
    image.name = QStringLiteral("image");
    image.candidates = {verdict(QStringLiteral("i1"), Verdict::Absent)};
    r.domains = {video, image};
    r.actions = {action(QStringLiteral("video"), QStringLiteral("v1"), ActionKind::Requeue,
                        ActionResult::Applied),
                 action(QStringLiteral("video"), QStringLiteral("v2"), ActionKind::Fail,
                        ActionResult::Stale),
                 action(QStringLiteral("image"), QStringLiteral("i1"), ActionKind::Fail,
                        ActionResult::Applied)};
    r.redisRoundTrips = 7;
    return r;
}

RunReport lockHeldRun()
{
    RunReport r;
    r.runId = QStringLiteral("r2");
    r.outcome = RunReport::Outcome::SkippedLockHeld;
    r.startedAt = kStart.addSecs(300);
    r.finishedAt = r.startedAt.addMSecs(20);
    r.redisRoundTrips = 1;
    return r;
}

QStringList linesOf(const QByteArray &text)
{
    return QString::fromUtf8(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TestMetricsRegistry : public QObject
{
    Q_OBJECT
private slots:
    void freshRegistryExposesZeroes();
    void exactExpositionAfterOneRun();
    void unreadDomainIsNotASuccess();
    void skippedRunKeepsCandidatesAndCountsOutcome();
    void lockHeldGaugeAndReloads();
    void labelValuesAreEscaped();
    void everySampleBelongsToADeclaredFamily();
    void heldActionsAndGuardTrips();
};

void TestMetricsRegistry::freshRegistryExposesZeroes()
{
    MetricsRegistry m;
    const QStringList lines = linesOf(m.exposition());
    QVERIFY(lines.contains(QStringLiteral("reclaim_runs_total{outcome=\"completed\"} 0")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_runs_total{outcome=\"skipped-lock-held\"} 0")));
    QVERIFY(lines.contains(
        QStringLiteral("reclaim_actions_total{kind=\"requeue\",result=\"applied\"} 0")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_last_success_timestamp_seconds 0")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_bucket{le=\"+Inf\"} 0")));
    QVERIFY(!m.exposition().contains("reclaim_candidates{"));
}

void TestMetricsRegistry::exactExpositionAfterOneRun()
{
    MetricsRegistry m;
    m.recordRun(completedRun());
    const QString expected =
        QStringLiteral(R"(# HELP reclaim_runs_total Recovery runs finished, by outcome.
# TYPE reclaim_runs_total counter
reclaim_runs_total{outcome="completed"} 1
reclaim_runs_total{outcome="failed"} 0
reclaim_runs_total{outcome="skipped-lock-held"} 0
reclaim_runs_total{outcome="skipped-unreachable"} 0
# HELP reclaim_candidates Candidates by domain and verdict in the last run that read them.
# TYPE reclaim_candidates gauge
reclaim_candidates{domain="image",verdict="absent"} 1
reclaim_candidates{domain="image",verdict="scheduled"} 0
reclaim_candidates{domain="image",verdict="unknown"} 0
reclaim_candidates{domain="video",verdict="absent"} 2
reclaim_candidates{domain="video",verdict="scheduled"} 1
reclaim_candidates{domain="video",verdict="unknown"} 1
# HELP reclaim_actions_total Recovery actions by kind and result.
# TYPE reclaim_actions_total counter
reclaim_actions_total{kind="fail",result="applied"} 1
reclaim_actions_total{kind="fail",result="dropped"} 0
reclaim_actions_total{kind="fail",result="enqueue-failed"} 0
reclaim_actions_total{kind="fail",result="error"} 0
reclaim_actions_total{kind="fail",result="fenced"} 0
reclaim_actions_total{kind="fail",result="lock-lost"} 0
reclaim_actions_total{kind="fail",result="pending"} 0
reclaim_actions_total{kind="fail",result="rejected"} 0
reclaim_actions_total{kind="fail",result="stale"} 1
reclaim_actions_total{kind="fail",result="unknown"} 0
reclaim_actions_total{kind="requeue",result="applied"} 1
reclaim_actions_total{kind="requeue",result="dropped"} 0
reclaim_actions_total{kind="requeue",result="enqueue-failed"} 0
reclaim_actions_total{kind="requeue",result="error"} 0
reclaim_actions_total{kind="requeue",result="fenced"} 0
reclaim_actions_total{kind="requeue",result="lock-lost"} 0
reclaim_actions_total{kind="requeue",result="pending"} 0
reclaim_actions_total{kind="requeue",result="rejected"} 0
reclaim_actions_total{kind="requeue",result="stale"} 0
reclaim_actions_total{kind="requeue",result="unknown"} 0
# HELP reclaim_lock_held 1 while a run of this process holds the recovery lock.
# TYPE reclaim_lock_held gauge
reclaim_lock_held 0
# HELP reclaim_domain_read_errors_total Completed runs that could not read a domain's candidates, by domain.
# TYPE reclaim_domain_read_errors_total counter
reclaim_domain_read_errors_total{domain="image"} 0
reclaim_domain_read_errors_total{domain="video"} 0
# HELP reclaim_last_success_timestamp_seconds Unix time the last completed run that read every domain finished (0 before the first).
# TYPE reclaim_last_success_timestamp_seconds gauge
reclaim_last_success_timestamp_seconds 1709294401
# HELP reclaim_run_duration_seconds Duration of recovery runs, all outcomes.
# TYPE reclaim_run_duration_seconds histogram
reclaim_run_duration_seconds_bucket{le="0.05"} 0
reclaim_run_duration_seconds_bucket{le="0.1"} 0
reclaim_run_duration_seconds_bucket{le="0.25"} 0
reclaim_run_duration_seconds_bucket{le="0.5"} 0
reclaim_run_duration_seconds_bucket{le="1"} 0
reclaim_run_duration_seconds_bucket{le="2.5"} 1
reclaim_run_duration_seconds_bucket{le="5"} 1
reclaim_run_duration_seconds_bucket{le="10"} 1
reclaim_run_duration_seconds_bucket{le="30"} 1
reclaim_run_duration_seconds_bucket{le="60"} 1
reclaim_run_duration_seconds_bucket{le="300"} 1
reclaim_run_duration_seconds_bucket{le="+Inf"} 1
reclaim_run_duration_seconds_sum 1.5
reclaim_run_duration_seconds_count 1
# HELP reclaim_redis_round_trips_total Redis round trips made by recovery runs.
# TYPE reclaim_redis_round_trips_total counter
reclaim_redis_round_trips_total 7
# HELP reclaim_held_actions Actions waiting for an operator now (any runner's), by domain, kind and what holds them (the guard's limit, or policy).
# TYPE reclaim_held_actions gauge
# HELP reclaim_held_oldest_timestamp_seconds Unix time the oldest action still held in a domain was held (0: none held).
# TYPE reclaim_held_oldest_timestamp_seconds gauge
# HELP reclaim_guard_trips_total Runs in which the blast-radius guard held a domain, by domain and limit.
# TYPE reclaim_guard_trips_total counter
# HELP reclaim_run_interval_seconds Seconds between the daemon's runs.
# TYPE reclaim_run_interval_seconds gauge
reclaim_run_interval_seconds 0
# HELP reclaim_config_reloads_total Configuration reloads (SIGHUP), by result.
# TYPE reclaim_config_reloads_total counter
reclaim_config_reloads_total{result="applied"} 0
reclaim_config_reloads_total{result="refused"} 0
)");
    QCOMPARE(QString::fromUtf8(m.exposition()), expected);
}

// A completed run that could not read one domain's candidates counts an error for that domain
// and is not a success: the last-success gauge keeps the previous run's time (#13 item 3).
void TestMetricsRegistry::unreadDomainIsNotASuccess()
{
    MetricsRegistry m;
    m.recordRun(completedRun());
    RunReport partial = completedRun();
    partial.finishedAt = partial.finishedAt.addSecs(300);
    partial.domains.last().candidateError = QStringLiteral("relation \"ImageJob\" does not exist");
    m.recordRun(partial);
    const QStringList lines = linesOf(m.exposition());
    QVERIFY(lines.contains(QStringLiteral("reclaim_domain_read_errors_total{domain=\"image\"} 1")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_domain_read_errors_total{domain=\"video\"} 0")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_last_success_timestamp_seconds 1709294401")));
    RunReport later = completedRun();
    later.finishedAt = later.finishedAt.addSecs(600);
    m.recordRun(later); // every domain read again: a success
    QVERIFY(linesOf(m.exposition())
                .contains(QStringLiteral("reclaim_last_success_timestamp_seconds 1709295001")));
}

void TestMetricsRegistry::skippedRunKeepsCandidatesAndCountsOutcome()
{
    MetricsRegistry m;
    m.recordRun(completedRun());
    m.recordRun(lockHeldRun());
    const QStringList lines = linesOf(m.exposition());
    QVERIFY(lines.contains(QStringLiteral("reclaim_runs_total{outcome=\"completed\"} 1")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_runs_total{outcome=\"skipped-lock-held\"} 1")));
    // The skipped run read no candidates: the gauge still shows the last reading.
    QVERIFY(lines.contains(
        QStringLiteral("reclaim_candidates{domain=\"video\",verdict=\"absent\"} 2")));
    // Last success stays the completed run's finish.
    QVERIFY(lines.contains(QStringLiteral("reclaim_last_success_timestamp_seconds 1709294401")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_bucket{le=\"0.05\"} 1")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_bucket{le=\"2.5\"} 2")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_bucket{le=\"+Inf\"} 2")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_sum 1.52")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_run_duration_seconds_count 2")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_redis_round_trips_total 8")));

    // A later completed run replaces the gauge, including domains that are gone.
    RunReport next = completedRun();
    next.domains.removeLast();
    m.recordRun(next);
    QVERIFY(!m.exposition().contains("reclaim_candidates{domain=\"image\""));
    QVERIFY(
        linesOf(m.exposition())
            .contains(QStringLiteral("reclaim_actions_total{kind=\"fail\",result=\"applied\"} 2")));
}

void TestMetricsRegistry::lockHeldGaugeAndReloads()
{
    MetricsRegistry m;
    m.setLockHeld(true);
    m.recordConfigReload(false);
    m.recordConfigReload(true);
    m.recordConfigReload(false);
    QStringList lines = linesOf(m.exposition());
    QVERIFY(lines.contains(QStringLiteral("reclaim_lock_held 1")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_config_reloads_total{result=\"refused\"} 2")));
    QVERIFY(lines.contains(QStringLiteral("reclaim_config_reloads_total{result=\"applied\"} 1")));
    m.setLockHeld(false);
    QVERIFY(linesOf(m.exposition()).contains(QStringLiteral("reclaim_lock_held 0")));
}

void TestMetricsRegistry::labelValuesAreEscaped()
{
    MetricsRegistry m;
    RunReport r = completedRun();
    r.domains.first().name = QStringLiteral("we\"ird\\na\nme");
    m.recordRun(r);
    QVERIFY(linesOf(m.exposition())
                .contains(QStringLiteral(
                    "reclaim_candidates{domain=\"we\\\"ird\\\\na\\nme\",verdict=\"absent\"} 2")));
}

void TestMetricsRegistry::everySampleBelongsToADeclaredFamily()
{
    MetricsRegistry m;
    m.recordRun(completedRun());
    m.recordRun(lockHeldRun());
    static const QRegularExpression sample(QStringLiteral(
        R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (\S+)$)"));
    QString helped;
    QString typed;
    QSet<QString> seenFamilies;
    for (const QString &line : linesOf(m.exposition())) {
        if (line.startsWith(QLatin1String("# HELP "))) {
            helped = line.section(QLatin1Char(' '), 2, 2);
            QVERIFY2(!seenFamilies.contains(helped), qPrintable(line)); // one block per family
            seenFamilies.insert(helped);
            continue;
        }
        if (line.startsWith(QLatin1String("# TYPE "))) {
            typed = line.section(QLatin1Char(' '), 2, 2);
            QCOMPARE(typed, helped);
            const QString type = line.section(QLatin1Char(' '), 3);
            QVERIFY2(QStringList({QStringLiteral("counter"), QStringLiteral("gauge"),
                                  QStringLiteral("histogram")})
                         .contains(type),
                     qPrintable(line));
            if (type == QLatin1String("counter"))
                QVERIFY2(typed.endsWith(QLatin1String("_total")), qPrintable(line));
            continue;
        }
        const auto match = sample.match(line);
        QVERIFY2(match.hasMatch(), qPrintable(line));
        const QString name = match.captured(1);
        QVERIFY2(name == typed || name == typed + QLatin1String("_bucket") ||
                     name == typed + QLatin1String("_sum") ||
                     name == typed + QLatin1String("_count"),
                 qPrintable(line));
        bool ok = false;
        match.captured(3).toDouble(&ok);
        QVERIFY2(ok, qPrintable(line));
    }
    QVERIFY(seenFamilies.size() >= 8);
}

// #29: what waits for an operator (any runner's, as the run read it), the oldest per domain, the
// guard's trips by limit, the interval; a group that empties stays at 0 so an alert resolves.
void TestMetricsRegistry::heldActionsAndGuardTrips()
{
    MetricsRegistry m;
    m.setRunInterval(300);
    RunReport r = completedRun();
    r.domains[1].heldReason = QStringLiteral("image: queue image-render has no trace");
    r.domains[1].heldLimit = QStringLiteral("no-trace");
    r.heldOpen = QList<HeldGroup>{{QStringLiteral("image"), ActionKind::Fail,
                                   QStringLiteral("no-trace"), 7, kStart.addSecs(-600)},
                                  {QStringLiteral("video"), ActionKind::Fail,
                                   QStringLiteral("policy"), 2, kStart.addSecs(-60)},
                                  {QStringLiteral("video"), ActionKind::Requeue,
                                   QStringLiteral("policy"), 1, kStart.addSecs(-120)}};
    m.recordRun(r);
    QStringList lines = linesOf(m.exposition());
    for (const char *line :
         {"reclaim_held_actions{domain=\"image\",kind=\"fail\",reason=\"no-trace\"} 7",
          "reclaim_held_actions{domain=\"video\",kind=\"fail\",reason=\"policy\"} 2",
          "reclaim_held_actions{domain=\"video\",kind=\"requeue\",reason=\"policy\"} 1",
          "reclaim_guard_trips_total{domain=\"image\",limit=\"no-trace\"} 1",
          "reclaim_run_interval_seconds 300"})
        QVERIFY2(lines.contains(QLatin1String(line)), line);
    QVERIFY(
        lines.contains(QStringLiteral("reclaim_held_oldest_timestamp_seconds{domain=\"image\"} %1")
                           .arg(kStart.addSecs(-600).toSecsSinceEpoch())));
    QVERIFY(
        lines.contains(QStringLiteral("reclaim_held_oldest_timestamp_seconds{domain=\"video\"} %1")
                           .arg(kStart.addSecs(-120).toSecsSinceEpoch())));

    // Approved since: nothing held in image any more; a run that did not read them (skipped)
    // changes nothing.
    m.recordRun(lockHeldRun());
    QVERIFY(linesOf(m.exposition())
                .contains(QStringLiteral(
                    "reclaim_held_actions{domain=\"image\",kind=\"fail\",reason=\"no-trace\"} 7")));
    RunReport later = completedRun();
    later.heldOpen = QList<HeldGroup>{{QStringLiteral("video"), ActionKind::Fail,
                                       QStringLiteral("policy"), 2, kStart.addSecs(-60)}};
    m.recordRun(later);
    lines = linesOf(m.exposition());
    QVERIFY(lines.contains(QStringLiteral(
        "reclaim_held_actions{domain=\"image\",kind=\"fail\",reason=\"no-trace\"} 0")));
    QVERIFY(lines.contains(
        QStringLiteral("reclaim_held_oldest_timestamp_seconds{domain=\"image\"} 0")));
    QVERIFY(lines.contains(
        QStringLiteral("reclaim_guard_trips_total{domain=\"image\",limit=\"no-trace\"} 1")));
}

QTEST_GUILESS_MAIN(TestMetricsRegistry)
#include "test_metricsregistry.moc"
