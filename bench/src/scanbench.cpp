#include "scanbench.h"

#include "postgres/pgjobstore.h"
#include "recovery/directlookup.h"
#include "recovery/domainscan.h"
#include "service/redisadapters.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace reclaim::bench {

namespace {

int scheduledCount(const QList<CandidateVerdict> &verdicts)
{
    return static_cast<int>(
        std::count_if(verdicts.begin(), verdicts.end(),
                      [](const CandidateVerdict &v) { return v.verdict == Verdict::Scheduled; }));
}

} // namespace

int runScanBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 3));
    // --ids FILE: one domain's candidates from a file (a lookup fixture, no job table), as the
    // lookup measurement takes them; else every domain's from PostgreSQL.
    const QString idsFile = args.value(QStringLiteral("ids"));
    std::unique_ptr<PgJobStore> store;
    if (idsFile.isEmpty()) {
        auto opened = PgJobStore::open(*config, true);
        if (!opened)
            return fail(opened.error().message);
        store = std::move(*opened);
    }
    RedisAdapters redis(*config);

    struct Looked
    {
        const DomainConfig *domain;
        QList<CandidateVerdict> verdicts;
    };
    QList<Looked> looked;
    QJsonArray unresolvedOut;
    const QString onlyDomain = args.value(QStringLiteral("domain"), QStringLiteral("image"));
    for (const DomainConfig &d : config->domains) {
        if (!store && d.name != onlyDomain)
            continue;
        QList<Candidate> candidates;
        if (store) {
            auto read = store->readCandidates(d, RowJson::Skip);
            if (!read)
                return fail(read.error().message);
            candidates = std::move(*read);
        } else {
            auto read = candidatesFromFile(idsFile, d.name);
            if (!read)
                return fail(read.error());
            candidates = std::move(*read);
        }
        Looked l{&d, lookUpDirectly(d, candidates, redis.queue)};
        QJsonArray ids;
        for (const CandidateVerdict &v : l.verdicts) {
            if (v.verdict == Verdict::Unknown)
                return fail(QStringLiteral("lookup failed: %1").arg(v.unknownReason));
            if (v.verdict != Verdict::Scheduled)
                ids.append(v.candidate.id);
        }
        unresolvedOut.append(
            QJsonObject{{QStringLiteral("domain"), d.name},
                        {QStringLiteral("keyPrefix"), d.keyPrefix},
                        {QStringLiteral("queues"), QJsonArray::fromStringList(d.queues)},
                        {QStringLiteral("ids"), ids}});
        looked << l;
    }
    const QString out = args.value(QStringLiteral("unresolved-out"));
    if (!out.isEmpty()) {
        QFile f(out);
        if (!f.open(QIODevice::WriteOnly) ||
            f.write(
                QJsonDocument(QJsonObject{{QStringLiteral("scanOrder"),
                                           QJsonArray::fromStringList(scanOrder())},
                                          {QStringLiteral("pageSize"), config->run.scanPageSize},
                                          {QStringLiteral("domains"), unresolvedOut}})
                    .toJson(QJsonDocument::Compact)) < 0)
            return fail(QStringLiteral("cannot write %1").arg(out));
    }

    QList<double> seconds;
    qint64 jobsRead = 0;
    int pages = 0, found = 0, unresolved = 0;
    for (int rep = 0; rep <= reps; ++rep) { // rep 0 warms up
        jobsRead = 0;
        pages = found = unresolved = 0;
        QElapsedTimer t;
        t.start();
        for (const Looked &l : looked) {
            QList<CandidateVerdict> verdicts = l.verdicts;
            const ScanStats stats =
                scanDomain(*l.domain, verdicts, redis.queue, config->run.scanPageSize);
            if (stats.error)
                return fail(*stats.error);
            jobsRead += stats.jobsRead;
            pages += stats.pages;
            found += scheduledCount(verdicts) - scheduledCount(l.verdicts);
            unresolved += static_cast<int>(l.verdicts.size()) - scheduledCount(l.verdicts);
        }
        if (rep > 0)
            seconds << t.nsecsElapsed() / 1e9;
    }
    const double med = median(seconds);
    printJson(
        {{QStringLiteral("measure"), QStringLiteral("scan")},
         {QStringLiteral("jobsRead"), jobsRead},
         {QStringLiteral("pages"), pages},
         {QStringLiteral("unresolved"), unresolved},
         {QStringLiteral("foundByScan"), found},
         {QStringLiteral("pageSize"), config->run.scanPageSize},
         {QStringLiteral("seconds"), summarize(seconds)},
         {QStringLiteral("jobsPerSecond"), med > 0 ? static_cast<double>(jobsRead) / med : 0}});
    return 0;
}

} // namespace reclaim::bench
