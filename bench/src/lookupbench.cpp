#include "lookupbench.h"

#include "recovery/directlookup.h"
#include "service/redisadapters.h"

#include <QElapsedTimer>
#include <algorithm>

namespace reclaim::bench {

int runLookupBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const DomainConfig *domain =
        config->domain(args.value(QStringLiteral("domain"), QStringLiteral("image")));
    if (!domain)
        return fail(QStringLiteral("no such domain in the configuration"));
    auto candidates = candidatesFromFile(args.value(QStringLiteral("ids")), domain->name);
    if (!candidates)
        return fail(candidates.error());
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 5));

    // One inspector for every repetition, as the daemon keeps one across runs; the first pass
    // (connect, SCRIPT LOAD after NOSCRIPT) is a warm-up and not counted.
    RedisAdapters redis(*config);
    QList<double> seconds, tripsPer1000;
    int scheduled = 0, absent = 0, unknown = 0;
    for (int rep = 0; rep <= reps; ++rep) {
        const qint64 before = redis.queue.roundTrips();
        QElapsedTimer t;
        t.start();
        const QList<CandidateVerdict> verdicts = lookUpDirectly(*domain, *candidates, redis.queue);
        const double s = t.nsecsElapsed() / 1e9;
        const qint64 trips = redis.queue.roundTrips() - before;
        scheduled = absent = unknown = 0;
        for (const CandidateVerdict &v : verdicts) {
            scheduled += v.verdict == Verdict::Scheduled;
            absent += v.verdict == Verdict::Absent;
            unknown += v.verdict == Verdict::Unknown;
        }
        if (unknown)
            return fail(QStringLiteral("%1 lookups failed (UNKNOWN); first: %2")
                            .arg(unknown)
                            .arg(std::find_if(verdicts.begin(), verdicts.end(),
                                              [](const CandidateVerdict &v) {
                                                  return v.verdict == Verdict::Unknown;
                                              })
                                     ->unknownReason));
        if (rep == 0)
            continue;
        seconds << s;
        tripsPer1000 << 1000.0 * static_cast<double>(trips) /
                            static_cast<double>(qMax<qsizetype>(1, candidates->size()));
    }
    const double med = median(seconds);
    printJson({{QStringLiteral("measure"), QStringLiteral("lookup")},
               {QStringLiteral("candidates"), static_cast<qint64>(candidates->size())},
               {QStringLiteral("probeBatchSize"), config->run.probeBatchSize},
               {QStringLiteral("listProbeLimit"), config->run.listProbeLimit},
               {QStringLiteral("seconds"), summarize(seconds)},
               {QStringLiteral("candidatesPerSecond"),
                med > 0 ? static_cast<double>(candidates->size()) / med : 0},
               {QStringLiteral("roundTripsPer1000"), summarize(tripsPer1000)},
               {QStringLiteral("scheduled"), scheduled},
               {QStringLiteral("absent"), absent}});
    return 0;
}

} // namespace reclaim::bench
