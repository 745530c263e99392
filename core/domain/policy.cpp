#include "domain/policy.h"

namespace reclaim {

QString policyName(Policy p)
{
    switch (p) {
    case Policy::Auto:
        return QStringLiteral("auto");
    case Policy::Approve:
        return QStringLiteral("approve");
    case Policy::Observe:
        return QStringLiteral("observe");
    }
    return {};
}

std::optional<Policy> policyNamed(const QString &name)
{
    for (Policy p : {Policy::Auto, Policy::Approve, Policy::Observe})
        if (policyName(p) == name)
            return p;
    return std::nullopt;
}

} // namespace reclaim
