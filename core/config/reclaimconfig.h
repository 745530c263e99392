// The whole validated configuration: connections, run settings and the domain registry.
#pragma once

#include "config/connectionurl.h"
#include "config/domainconfig.h"

#include <QList>
#include <QString>
#include <chrono>

namespace reclaim {

enum class Policy
{
    Auto,
    Observe
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
    int scanPageSize = 200;
    int probeBatchSize = 1000;  // direct lookups per pipelined round trip
    int listProbeLimit = 10000; // list elements a lookup may walk before reading the list once
    Policy policy = Policy::Auto;
    QString timeZone = QStringLiteral("UTC"); // how the job tables' timestamps are stored
};

struct ReclaimConfig
{
    QString sourcePath;
    PostgresEndpoint postgres;
    RedisEndpoint redis;
    RunSettings run;
    QList<DomainConfig> domains;

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
