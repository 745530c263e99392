// When the daemon answers /readyz with 200: the last preflight check (`--check`, run at start
// and again at each interval while it fails) did not fail, and a run that reached a decision
// finished within the last two intervals. (The configuration in use is always valid: an invalid
// file stops the daemon at start, and a reload that does not validate is refused.)
#pragma once

#include <QDateTime>
#include <QString>
#include <chrono>

namespace reclaim {

struct ReadinessInput
{
    std::chrono::seconds interval{300};
    // The last run that reached a decision: it completed, or it found another runner holding
    // the lock (that runner is doing the work). Invalid before the first such run.
    QDateTime lastDecidedAt;
    QString lastDecidedRunId;
    // The last run of any outcome, for the reason text ("failed: PostgreSQL unreachable").
    QString lastRunSummary;
    // The items of the last preflight check that failed ("redis.maxmemory-policy: ..."), empty
    // when it did not fail (or has not finished yet).
    QString failedCheck;
};

struct Readiness
{
    bool ready = false;
    QString reason; // one line, for the response body and the log
};

Readiness evaluateReadiness(const ReadinessInput &input, const QDateTime &now);

} // namespace reclaim
