#include "domain/heldaction.h"

namespace reclaim {

QString heldStateName(HeldState s)
{
    switch (s) {
    case HeldState::Held:
        return QStringLiteral("held");
    case HeldState::Approved:
        return QStringLiteral("approved");
    case HeldState::Rejected:
        return QStringLiteral("rejected");
    case HeldState::Superseded:
        return QStringLiteral("superseded");
    case HeldState::Executed:
        return QStringLiteral("executed");
    }
    return {};
}

std::optional<HeldState> heldStateNamed(const QString &name)
{
    for (HeldState s : {HeldState::Held, HeldState::Approved, HeldState::Rejected,
                        HeldState::Superseded, HeldState::Executed})
        if (heldStateName(s) == name)
            return s;
    return std::nullopt;
}

} // namespace reclaim
