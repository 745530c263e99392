#include "domain/action.h"

namespace reclaim {

QString actionKindName(ActionKind k)
{
    return k == ActionKind::Requeue ? QStringLiteral("REQUEUE") : QStringLiteral("FAIL");
}

QString actionResultName(ActionResult r)
{
    switch (r) {
    case ActionResult::Pending:
        return QStringLiteral("pending");
    case ActionResult::Applied:
        return QStringLiteral("applied");
    case ActionResult::Stale:
        return QStringLiteral("stale");
    case ActionResult::Fenced:
        return QStringLiteral("fenced");
    case ActionResult::EnqueueFailed:
        return QStringLiteral("enqueue-failed");
    case ActionResult::Dropped:
        return QStringLiteral("dropped");
    case ActionResult::Rejected:
        return QStringLiteral("rejected");
    case ActionResult::LockLost:
        return QStringLiteral("lock-lost");
    case ActionResult::Unknown:
        return QStringLiteral("unknown");
    case ActionResult::Error:
        return QStringLiteral("error");
    }
    return {};
}

} // namespace reclaim
