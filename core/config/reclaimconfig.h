// The whole validated configuration: connections, run settings and the domain registry.
#pragma once

#include "config/connectionurl.h"
#include "config/domainconfig.h"
#include "domain/policy.h"

#include <QList>
#include <QString>
#include <chrono>

namespace reclaim {

// The blast-radius guard (recovery/blastradiusguard.h): above any of these, nothing of a domain
// executes in a run and every action is held for an operator. The defaults are documented with
// their reasoning in the README ("The blast-radius guard").
struct GuardSettings
{
    int maxActions = 100;        // planned actions of one domain in one run
    double maxAbsentShare = 0.5; // ABSENT candidates / candidates of a domain ...
    int minCandidates = 20;      // ... counted from this many candidates on
};

struct RunSettings
{
    // The range of run.intervalSeconds and of --interval. A day at most keeps the daemon's
    // QTimer, which counts in int milliseconds, far from overflowing (86,400,000 < 2^31).
    static constexpr qint64 kMinIntervalSeconds = 1;
    static constexpr qint64 kMaxIntervalSeconds = 86400;

    QString lockKey = QStringLiteral("lock:job-recovery");
    std::chrono::seconds lockTtl{600};
    std::chrono::seconds interval{300};
    std::chrono::milliseconds redisTimeout{2000};
    std::chrono::milliseconds postgresTimeout{5000};
    // Jobs per scan page, each with its payload: 1,000 is the order of BullMQ's own batches and of
    // a probe call; lower it where payloads are large (a page's reply carries every one).
    int scanPageSize = 1000;
    int probeBatchSize = 2500;  // direct lookups per pipelined round trip (calls of <= 1,000)
    int listProbeLimit = 10000; // list elements a lookup may walk before reading the list once
    // SCHEDULED candidates a run's report lists per domain, with their evidence; the rest are
    // counted (DomainReport::unlistedScheduled). After a data loss tens of thousands of healthy
    // jobs are candidates too, and listing each costs memory and hides the ABSENT ones.
    int scheduledListed = 1000;
    Policy policy = Policy::Auto; // the default of every domain's requeue and fail policy
    GuardSettings guard;
    QString timeZone = QStringLiteral("UTC"); // how the job tables' timestamps are stored
};

struct ReclaimConfig
{
    QString sourcePath;
    PostgresEndpoint postgres;
    RedisEndpoint redis;
    RunSettings run;
    QList<DomainConfig> domains;

    // True when some domain lets a kind of action run on its own (policy auto): a runner with
    // nothing of the kind only plans, holds and reports.
    bool executesAnything() const
    {
        for (const DomainConfig &d : domains)
            if (d.requeuePolicy == Policy::Auto || d.failPolicy == Policy::Auto)
                return true;
        return false;
    }

    // The domain called `name`, or null when none is (any more) configured.
    const DomainConfig *domain(const QString &name) const
    {
        for (const DomainConfig &d : domains)
            if (d.name == name)
                return &d;
        return nullptr;
    }
};

} // namespace reclaim
