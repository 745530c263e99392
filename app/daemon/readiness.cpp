#include "daemon/readiness.h"

namespace reclaim {

Readiness evaluateReadiness(const ReadinessInput &in, const QDateTime &now)
{
    const QString last = in.lastRunSummary.isEmpty()
                             ? QString()
                             : QStringLiteral(" (last run: %1)").arg(in.lastRunSummary);
    // A failed check comes first, and the runs' state still follows it: both are for on-call.
    const QString check =
        in.failedCheck.isEmpty()
            ? QString()
            : QStringLiteral("the preflight check failed: %1; ").arg(in.failedCheck);
    if (!in.lastDecidedAt.isValid())
        return {false, check + QStringLiteral("no run has completed yet") + last};
    if (!check.isEmpty())
        return {false,
                check + QStringLiteral("the last completed run was %1").arg(in.lastDecidedRunId) +
                    last};
    const qint64 limit = 2 * static_cast<qint64>(in.interval.count());
    const qint64 age = in.lastDecidedAt.secsTo(now);
    if (age > limit)
        return {false,
                QStringLiteral(
                    "the last completed run (%1) finished %2 s ago, more than two intervals (%3 s)")
                        .arg(in.lastDecidedRunId)
                        .arg(age)
                        .arg(limit) +
                    last};
    return {true, QStringLiteral("ok: run %1 finished %2 s ago").arg(in.lastDecidedRunId).arg(age)};
}

} // namespace reclaim
