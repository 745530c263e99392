#include "runbench.h"

#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QSysInfo>

namespace reclaim::bench {

namespace {

// Attributes the inspector's round trips to the phase the run reports it is in.
class PhaseTrips final : public RunProgress
{
public:
    explicit PhaseTrips(const QueueInspector &inspector) : m_inspector(inspector) {}

    void phase(const QString &phase, int, int) override
    {
        if (phase == m_current)
            return;
        close();
        m_current = phase;
        m_at = m_inspector.roundTrips();
    }

    void close()
    {
        if (!m_current.isEmpty())
            m_trips[m_current] += m_inspector.roundTrips() - m_at;
        m_current.clear();
    }

    QJsonObject toJson() const
    {
        QJsonObject o;
        for (auto it = m_trips.begin(); it != m_trips.end(); ++it)
            o.insert(it.key(), it.value());
        return o;
    }

private:
    const QueueInspector &m_inspector;
    QString m_current;
    qint64 m_at = 0;
    QHash<QString, qint64> m_trips;
};

} // namespace

int runRunBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const bool apply = args.flag(QStringLiteral("apply"));
    const qint64 rssBefore = rssKiB();

    QElapsedTimer wall;
    wall.start();
    // As Engine::run: a fresh database connection per run, one Redis inspector/writer/lock.
    auto store = PgJobStore::open(*config, !apply);
    RedisAdapters redis(*config);
    RecoveryRun run(*config, store ? store->get() : nullptr,
                    store ? QString() : store.error().message, redis.queue, redis.queue,
                    redis.lock);
    PhaseTrips trips(redis.queue);
    RunRequest request;
    request.trigger = QStringLiteral("bench");
    request.dryRun = !apply;
    request.executeActions = apply;
    request.actor =
        Actor{QStringLiteral("bench"), QSysInfo::machineHostName(), QStringLiteral("bench"), {}};
    request.progress = &trips;
    const RunReport report = run.run(request);
    trips.close();
    const double wallMs = wall.nsecsElapsed() / 1e6;

    QJsonObject domains;
    for (const DomainReport &d : report.domains)
        domains.insert(
            d.name,
            QJsonObject{{QStringLiteral("candidates"), static_cast<qint64>(d.candidates.size())},
                        {QStringLiteral("scheduled"), d.count(Verdict::Scheduled)},
                        {QStringLiteral("absent"), d.count(Verdict::Absent)},
                        {QStringLiteral("unknown"), d.count(Verdict::Unknown)},
                        {QStringLiteral("scanRan"), d.scan.ran},
                        {QStringLiteral("scanPages"), d.scan.pages},
                        {QStringLiteral("scanJobsRead"), d.scan.jobsRead},
                        {QStringLiteral("error"), d.candidateError.value_or(QString())}});
    QJsonObject actions;
    for (ActionResult r : {ActionResult::Pending, ActionResult::Applied, ActionResult::Stale,
                           ActionResult::Fenced, ActionResult::EnqueueFailed, ActionResult::Dropped,
                           ActionResult::Rejected, ActionResult::LockLost, ActionResult::Error})
        if (const int n = report.count(r))
            actions.insert(actionResultName(r), n);
    const PhaseTimes &p = report.phases;
    int candidates = 0;
    for (const DomainReport &d : report.domains)
        candidates += static_cast<int>(d.candidates.size());
    printJson(
        {{QStringLiteral("measure"), QStringLiteral("run")},
         {QStringLiteral("apply"), apply},
         {QStringLiteral("outcome"), RunReport::outcomeName(report.outcome)},
         {QStringLiteral("outcomeDetail"), report.outcomeDetail},
         {QStringLiteral("wallMs"), wallMs},
         {QStringLiteral("phasesMs"), QJsonObject{{QStringLiteral("lock"), p.lockMs},
                                                  {QStringLiteral("candidates"), p.candidatesMs},
                                                  {QStringLiteral("lookup"), p.lookupMs},
                                                  {QStringLiteral("scan"), p.scanMs},
                                                  {QStringLiteral("plan"), p.planMs},
                                                  {QStringLiteral("execute"), p.executeMs}}},
         {QStringLiteral("roundTrips"), report.redisRoundTrips},
         {QStringLiteral("roundTripsByPhase"), trips.toJson()},
         {QStringLiteral("candidates"), candidates},
         {QStringLiteral("scheduled"), report.count(Verdict::Scheduled)},
         {QStringLiteral("absent"), report.count(Verdict::Absent)},
         {QStringLiteral("unknown"), report.count(Verdict::Unknown)},
         {QStringLiteral("actions"), actions},
         {QStringLiteral("domains"), domains},
         {QStringLiteral("rssBeforeKiB"), rssBefore},
         {QStringLiteral("peakRssKiB"), peakRssKiB()}});
    return report.outcome == RunReport::Outcome::Completed ? 0 : 4;
}

} // namespace reclaim::bench
