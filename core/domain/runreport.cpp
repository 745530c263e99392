#include "domain/runreport.h"

#include <QUuid>

namespace reclaim {

QString LockReport::stateName(State s)
{
    switch (s) {
    case State::NotAttempted:
        return QStringLiteral("not-attempted");
    case State::Acquired:
        return QStringLiteral("acquired");
    case State::Held:
        return QStringLiteral("held");
    case State::Unreachable:
        return QStringLiteral("unreachable");
    }
    return {};
}

VerdictCounts DomainReport::counts() const
{
    if (settledCounts)
        return *settledCounts;
    VerdictCounts n;
    for (const CandidateVerdict &c : candidates) {
        switch (c.verdict) {
        case Verdict::Scheduled:
            ++n.scheduled;
            break;
        case Verdict::Absent:
            ++n.absent;
            break;
        case Verdict::Unknown:
            ++n.unknown;
            break;
        }
    }
    n.scheduled += static_cast<int>(unlistedScheduled.size());
    return n;
}

QString RunReport::newRunId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
}

QString RunReport::outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::Completed:
        return QStringLiteral("completed");
    case Outcome::SkippedLockHeld:
        return QStringLiteral("skipped-lock-held");
    case Outcome::SkippedUnreachable:
        return QStringLiteral("skipped-unreachable");
    case Outcome::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

int RunReport::count(Verdict v) const
{
    return counts().of(v);
}

VerdictCounts RunReport::counts() const
{
    VerdictCounts n;
    for (const DomainReport &d : domains)
        n += d.counts();
    return n;
}

int RunReport::count(ActionResult r) const
{
    int n = 0;
    for (const Action &a : actions)
        n += a.result == r ? 1 : 0;
    return n;
}

const CandidateVerdict *RunReport::find(const QString &domain, const QString &rowId) const
{
    for (const DomainReport &d : domains)
        if (d.name == domain)
            for (const CandidateVerdict &c : d.candidates)
                if (c.candidate.id == rowId)
                    return &c;
    return nullptr;
}

QStringList RunReport::unreadDomains() const
{
    QStringList names;
    for (const DomainReport &d : domains)
        if (d.candidateError)
            names << d.name;
    return names;
}

} // namespace reclaim
