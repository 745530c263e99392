#include "preflight/preflight.h"

#include "preflight/lockcheck.h"
#include "preflight/postgrescheck.h"
#include "preflight/queuecheck.h"
#include "preflight/redischeck.h"

#include <QElapsedTimer>

namespace reclaim {

CheckReport runPreflight(const ReclaimConfig &config)
{
    QElapsedTimer timer;
    timer.start();
    CheckReport report;
    qsizetype queues = 0;
    for (const DomainConfig &d : config.domains)
        queues += d.queues.size();
    report.add(
        QStringLiteral("config"), CheckStatus::Pass,
        QStringLiteral("%1: %2 domains, %3 queues, lock key %4")
            .arg(config.sourcePath.isEmpty() ? QStringLiteral("configuration") : config.sourcePath)
            .arg(config.domains.size())
            .arg(queues)
            .arg(config.run.lockKey));
    const std::unique_ptr<PgConnection> pg = checkPostgres(config, report);
    std::optional<CheckedRedis> redis = checkRedis(config, report);
    checkQueues(config, redis ? &*redis : nullptr, report);
    checkLock(config, redis ? &*redis : nullptr, pg.get(), report);
    report.elapsedMs = timer.elapsed();
    return report;
}

CheckReport configFailureReport(const ConfigError &error)
{
    CheckReport report;
    report.add(QStringLiteral("config"), CheckStatus::Fail, error.toString(),
               QStringLiteral("correct the key named, then run reclaim --check again"));
    return report;
}

} // namespace reclaim
