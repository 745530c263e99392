#include "metrics/metricsregistry.h"

#include <QLocale>

namespace reclaim {

namespace {

constexpr RunReport::Outcome kOutcomes[] = {
    RunReport::Outcome::Completed, RunReport::Outcome::SkippedLockHeld,
    RunReport::Outcome::SkippedUnreachable, RunReport::Outcome::Failed};
constexpr ActionKind kKinds[] = {ActionKind::Requeue, ActionKind::Fail};
constexpr ActionResult kResults[] = {ActionResult::Pending,       ActionResult::Applied,
                                     ActionResult::Stale,         ActionResult::Fenced,
                                     ActionResult::EnqueueFailed, ActionResult::Dropped,
                                     ActionResult::Rejected,      ActionResult::LockLost,
                                     ActionResult::Unknown,       ActionResult::Error};
constexpr Verdict kVerdicts[] = {Verdict::Scheduled, Verdict::Absent, Verdict::Unknown};

// Label values may hold anything a configuration names (domain names): escape per the format.
QString escapeLabel(QString value)
{
    value.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    value.replace(QLatin1Char('"'), QLatin1String("\\\""));
    value.replace(QLatin1Char('\n'), QLatin1String("\\n"));
    return value;
}

QString number(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

class Writer
{
public:
    void family(const char *name, const char *type, const char *help)
    {
        m_out += QStringLiteral("# HELP %1 %2\n# TYPE %1 %3\n")
                     .arg(QLatin1String(name), QLatin1String(help), QLatin1String(type));
    }
    void sample(const QString &name, const QList<QPair<QString, QString>> &labels,
                const QString &value)
    {
        m_out += name;
        if (!labels.isEmpty()) {
            m_out += QLatin1Char('{');
            for (qsizetype i = 0; i < labels.size(); ++i) {
                if (i)
                    m_out += QLatin1Char(',');
                m_out += labels.at(i).first + QStringLiteral("=\"") +
                         escapeLabel(labels.at(i).second) + QLatin1Char('"');
            }
            m_out += QLatin1Char('}');
        }
        m_out += QLatin1Char(' ') + value + QLatin1Char('\n');
    }
    QByteArray bytes() const { return m_out.toUtf8(); }

private:
    QString m_out;
};

} // namespace

MetricsRegistry::MetricsRegistry()
{
    // Every known label value starts at 0, so rate() and alerts see a series from the start.
    for (RunReport::Outcome o : kOutcomes)
        m_runs.insert(RunReport::outcomeName(o), 0);
    for (ActionKind k : kKinds)
        for (ActionResult r : kResults)
            m_actions.insert({actionKindName(k).toLower(), actionResultName(r)}, 0);
    m_reloads.insert(QStringLiteral("applied"), 0);
    m_reloads.insert(QStringLiteral("refused"), 0);
}

void MetricsRegistry::setLockHeld(bool held)
{
    m_lockHeld = held;
}

void MetricsRegistry::recordRun(const RunReport &r)
{
    ++m_runs[RunReport::outcomeName(r.outcome)];
    // A skipped or failed run read no candidates: the gauge keeps what the last reading saw.
    if (r.outcome == RunReport::Outcome::Completed) {
        m_candidates.clear();
        for (const DomainReport &d : r.domains) {
            for (Verdict v : kVerdicts)
                m_candidates.insert({d.name, verdictName(v).toLower()}, d.count(v));
            m_domainReadErrors[d.name] += d.candidateError ? 1 : 0;
        }
        // A run that could not read a domain's candidates did not reconcile it: not a success,
        // so an alert on this gauge's age fires for a table that lost its grants.
        if (r.unreadDomains().isEmpty())
            m_lastSuccessSeconds = r.finishedAt.toSecsSinceEpoch();
    }
    for (const Action &a : r.actions)
        ++m_actions[{actionKindName(a.kind).toLower(), actionResultName(a.result)}];
    for (const DomainReport &d : r.domains)
        if (!d.heldLimit.isEmpty())
            ++m_guardTrips[{d.name, d.heldLimit}];
    if (r.heldOpen) {
        for (auto it = m_held.begin(); it != m_held.end(); ++it)
            it.value() = 0;
        for (auto it = m_heldOldest.begin(); it != m_heldOldest.end(); ++it)
            it.value() = 0;
        for (const HeldGroup &g : *r.heldOpen) {
            m_held[{g.domain, actionKindName(g.kind).toLower(), g.limit}] += g.count;
            const qint64 at = g.oldest.toSecsSinceEpoch();
            qint64 &oldest = m_heldOldest[g.domain];
            oldest = oldest == 0 ? at : qMin(oldest, at);
        }
    }
    const double seconds = static_cast<double>(r.startedAt.msecsTo(r.finishedAt)) / 1000.0;
    for (std::size_t i = 0; i < kDurationBuckets.size(); ++i) {
        if (seconds <= kDurationBuckets[i]) {
            ++m_durationBuckets[i];
            break;
        }
    }
    ++m_durationCount;
    m_durationSum += seconds;
    m_redisRoundTrips += static_cast<quint64>(qMax<qint64>(0, r.redisRoundTrips));
}

void MetricsRegistry::setRunInterval(qint64 seconds)
{
    m_intervalSeconds = seconds;
}

void MetricsRegistry::recordConfigReload(bool applied)
{
    ++m_reloads[applied ? QStringLiteral("applied") : QStringLiteral("refused")];
}

QByteArray MetricsRegistry::exposition() const
{
    Writer w;
    w.family("reclaim_runs_total", "counter", "Recovery runs finished, by outcome.");
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it)
        w.sample(QStringLiteral("reclaim_runs_total"), {{QStringLiteral("outcome"), it.key()}},
                 QString::number(it.value()));

    w.family("reclaim_candidates", "gauge",
             "Candidates by domain and verdict in the last run that read them.");
    for (auto it = m_candidates.cbegin(); it != m_candidates.cend(); ++it)
        w.sample(QStringLiteral("reclaim_candidates"),
                 {{QStringLiteral("domain"), it.key().first},
                  {QStringLiteral("verdict"), it.key().second}},
                 QString::number(it.value()));

    w.family("reclaim_actions_total", "counter", "Recovery actions by kind and result.");
    for (auto it = m_actions.cbegin(); it != m_actions.cend(); ++it)
        w.sample(
            QStringLiteral("reclaim_actions_total"),
            {{QStringLiteral("kind"), it.key().first}, {QStringLiteral("result"), it.key().second}},
            QString::number(it.value()));

    w.family("reclaim_lock_held", "gauge",
             "1 while a run of this process holds the recovery lock.");
    w.sample(QStringLiteral("reclaim_lock_held"), {},
             m_lockHeld ? QStringLiteral("1") : QStringLiteral("0"));

    w.family("reclaim_domain_read_errors_total", "counter",
             "Completed runs that could not read a domain's candidates, by domain.");
    for (auto it = m_domainReadErrors.cbegin(); it != m_domainReadErrors.cend(); ++it)
        w.sample(QStringLiteral("reclaim_domain_read_errors_total"),
                 {{QStringLiteral("domain"), it.key()}}, QString::number(it.value()));

    w.family(
        "reclaim_last_success_timestamp_seconds", "gauge",
        "Unix time the last completed run that read every domain finished (0 before the first).");
    w.sample(QStringLiteral("reclaim_last_success_timestamp_seconds"), {},
             QString::number(m_lastSuccessSeconds));

    w.family("reclaim_run_duration_seconds", "histogram",
             "Duration of recovery runs, all outcomes.");
    quint64 cumulative = 0;
    for (std::size_t i = 0; i < kDurationBuckets.size(); ++i) {
        cumulative += m_durationBuckets[i];
        w.sample(QStringLiteral("reclaim_run_duration_seconds_bucket"),
                 {{QStringLiteral("le"), number(kDurationBuckets[i])}},
                 QString::number(cumulative));
    }
    w.sample(QStringLiteral("reclaim_run_duration_seconds_bucket"),
             {{QStringLiteral("le"), QStringLiteral("+Inf")}}, QString::number(m_durationCount));
    w.sample(QStringLiteral("reclaim_run_duration_seconds_sum"), {}, number(m_durationSum));
    w.sample(QStringLiteral("reclaim_run_duration_seconds_count"), {},
             QString::number(m_durationCount));

    w.family("reclaim_redis_round_trips_total", "counter",
             "Redis round trips made by recovery runs.");
    w.sample(QStringLiteral("reclaim_redis_round_trips_total"), {},
             QString::number(m_redisRoundTrips));

    w.family("reclaim_held_actions", "gauge",
             "Actions waiting for an operator now (any runner's), by domain, kind and what holds "
             "them (the guard's limit, or policy).");
    for (auto it = m_held.cbegin(); it != m_held.cend(); ++it)
        w.sample(QStringLiteral("reclaim_held_actions"),
                 {{QStringLiteral("domain"), std::get<0>(it.key())},
                  {QStringLiteral("kind"), std::get<1>(it.key())},
                  {QStringLiteral("reason"), std::get<2>(it.key())}},
                 QString::number(it.value()));
    w.family("reclaim_held_oldest_timestamp_seconds", "gauge",
             "Unix time the oldest action still held in a domain was held (0: none held).");
    for (auto it = m_heldOldest.cbegin(); it != m_heldOldest.cend(); ++it)
        w.sample(QStringLiteral("reclaim_held_oldest_timestamp_seconds"),
                 {{QStringLiteral("domain"), it.key()}}, QString::number(it.value()));
    w.family("reclaim_guard_trips_total", "counter",
             "Runs in which the blast-radius guard held a domain, by domain and limit.");
    for (auto it = m_guardTrips.cbegin(); it != m_guardTrips.cend(); ++it)
        w.sample(QStringLiteral("reclaim_guard_trips_total"),
                 {{QStringLiteral("domain"), it.key().first},
                  {QStringLiteral("limit"), it.key().second}},
                 QString::number(it.value()));
    w.family("reclaim_run_interval_seconds", "gauge", "Seconds between the daemon's runs.");
    w.sample(QStringLiteral("reclaim_run_interval_seconds"), {},
             QString::number(m_intervalSeconds));

    w.family("reclaim_config_reloads_total", "counter",
             "Configuration reloads (SIGHUP), by result.");
    for (auto it = m_reloads.cbegin(); it != m_reloads.cend(); ++it)
        w.sample(QStringLiteral("reclaim_config_reloads_total"),
                 {{QStringLiteral("result"), it.key()}}, QString::number(it.value()));
    return w.bytes();
}

} // namespace reclaim
