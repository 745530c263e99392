#include "recovery/traceguard.h"

namespace reclaim {

namespace {

// Why `domain` may not execute, or nothing when every queue of it has a trace.
std::optional<QString> whyHeld(const DomainConfig &domain, qsizetype actions,
                               QueueInspector &inspector)
{
    const QString count = QStringLiteral("%1 action%2 held")
                              .arg(actions)
                              .arg(actions == 1 ? QString() : QStringLiteral("s"));
    for (const QString &queue : domain.queues) {
        const auto traced = inspector.hasTrace(domain.keyPrefix, queue);
        if (!traced)
            return QStringLiteral("%1: could not check whether queue %2 has a trace in Redis "
                                  "(%3) — %4")
                .arg(domain.name, queue, traced.error().describe(), count);
        if (!*traced)
            return QStringLiteral("%1: queue %2 (prefix %3) has no trace in Redis: a wrong queue "
                                  "name, prefix or database, or a Redis that lost its data — %4")
                .arg(domain.name, queue, domain.keyPrefix, count);
    }
    return std::nullopt;
}

} // namespace

int holdDomainsWithoutTrace(const ReclaimConfig &config, RunReport &report,
                            QueueInspector &inspector)
{
    int held = 0;
    for (DomainReport &d : report.domains) {
        const DomainConfig *domain = config.domain(d.name);
        if (!domain)
            continue;
        qsizetype pending = 0;
        for (const Action &a : std::as_const(report.actions))
            pending += a.domain == d.name && a.result == ActionResult::Pending ? 1 : 0;
        if (pending == 0)
            continue;
        const auto reason = whyHeld(*domain, pending, inspector);
        if (!reason)
            continue;
        ++held;
        d.heldReason = *reason;
        for (Action &a : report.actions)
            if (a.domain == d.name && a.result == ActionResult::Pending) {
                a.heldReason = *reason;
                a.resultDetail = QStringLiteral("held: %1").arg(*reason);
            }
    }
    return held;
}

} // namespace reclaim
