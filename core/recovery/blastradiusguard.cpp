#include "recovery/blastradiusguard.h"

namespace reclaim {

namespace {

struct Trip
{
    QString limit;
    QString reason;
};

QString heldCount(qsizetype actions)
{
    return QStringLiteral("%1 action%2 held")
        .arg(actions)
        .arg(actions == 1 ? QString() : QStringLiteral("s"));
}

// Why `domain` may not execute because of a queue without a trace, or nothing.
std::optional<Trip> untracedQueue(const DomainConfig &domain, qsizetype actions,
                                  QueueInspector &inspector)
{
    for (const QString &queue : domain.queues) {
        const auto traced = inspector.hasTrace(domain.keyPrefix, queue);
        if (!traced)
            return Trip{
                QStringLiteral("trace-unchecked"),
                QStringLiteral("%1: could not check whether queue %2 has a trace in "
                               "Redis (%3) — %4")
                    .arg(domain.name, queue, traced.error().describe(), heldCount(actions))};
        if (!*traced)
            return Trip{QStringLiteral("no-trace"),
                        QStringLiteral("%1: queue %2 (prefix %3) has no trace in Redis: a wrong "
                                       "queue name, prefix or database, or a Redis that lost its "
                                       "data — %4")
                            .arg(domain.name, queue, domain.keyPrefix, heldCount(actions))};
    }
    return std::nullopt;
}

std::optional<Trip> overLimits(const GuardSettings &guard, const DomainReport &d, qsizetype actions)
{
    if (actions > guard.maxActions)
        return Trip{QStringLiteral("max-actions"),
                    QStringLiteral("%1: %2 actions planned in one run, above run.guard.maxActions "
                                   "(%3): a mass write waits for an operator — %4")
                        .arg(d.name)
                        .arg(actions)
                        .arg(guard.maxActions)
                        .arg(heldCount(actions))};
    const auto candidates = d.candidateCount();
    const int absent = d.count(Verdict::Absent);
    if (candidates >= guard.minCandidates &&
        static_cast<double>(absent) > guard.maxAbsentShare * static_cast<double>(candidates))
        return Trip{QStringLiteral("absent-share"),
                    QStringLiteral("%1: %2 of %3 candidates are ABSENT (%4%), above "
                                   "run.guard.maxAbsentShare (%5%): most of a backlog gone at "
                                   "once is a lost queue, not dead workers — %6")
                        .arg(d.name)
                        .arg(absent)
                        .arg(candidates)
                        .arg(100.0 * absent / static_cast<double>(candidates), 0, 'f', 0)
                        .arg(100.0 * guard.maxAbsentShare, 0, 'f', 0)
                        .arg(heldCount(actions))};
    return std::nullopt;
}

bool gated(const Action &a, const QString &domain)
{
    return a.domain == domain && a.result == ActionResult::Pending && a.policy != Policy::Observe;
}

} // namespace

int holdDomainsOverGuard(const ReclaimConfig &config, RunReport &report, QueueInspector &inspector)
{
    int held = 0;
    for (DomainReport &d : report.domains) {
        const DomainConfig *domain = config.domain(d.name);
        if (!domain)
            continue;
        qsizetype actions = 0;
        for (const Action &a : std::as_const(report.actions))
            actions += gated(a, d.name) ? 1 : 0;
        if (actions == 0)
            continue;
        // The trace first: of all the reasons it is the one an operator must read first.
        auto trip = untracedQueue(*domain, actions, inspector);
        if (!trip)
            trip = overLimits(config.run.guard, d, actions);
        if (!trip)
            continue;
        ++held;
        d.heldReason = trip->reason;
        d.heldLimit = trip->limit;
        const QString detail = QStringLiteral("held: %1").arg(trip->reason); // one shared copy
        for (Action &a : report.actions)
            if (gated(a, d.name)) {
                a.heldReason = trip->reason;
                a.resultDetail = detail;
            }
    }
    return held;
}

} // namespace reclaim
