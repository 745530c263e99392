#include "ports/rediserror.h"

namespace reclaim {

QString RedisError::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Connect:
        return QStringLiteral("connect");
    case Kind::Timeout:
        return QStringLiteral("timeout");
    case Kind::Io:
        return QStringLiteral("io");
    case Kind::Closed:
        return QStringLiteral("closed");
    case Kind::Protocol:
        return QStringLiteral("protocol");
    case Kind::Server:
        return QStringLiteral("server");
    case Kind::NoScript:
        return QStringLiteral("noscript");
    case Kind::Reply:
        return QStringLiteral("reply");
    case Kind::Moving:
        return QStringLiteral("moving");
    case Kind::Layout:
        return QStringLiteral("layout");
    case Kind::Tls:
        return QStringLiteral("tls");
    case Kind::Auth:
        return QStringLiteral("auth");
    case Kind::NoPermission:
        return QStringLiteral("no-permission");
    case Kind::Unanswered:
        return QStringLiteral("unanswered");
    case Kind::Unroutable:
        return QStringLiteral("unroutable");
    case Kind::Redirected:
        return QStringLiteral("redirected");
    }
    return QStringLiteral("unknown");
}

RedisError RedisError::unexpectedReply(const QString &what)
{
    return RedisError{Kind::Reply, QStringLiteral("unexpected reply shape from %1").arg(what)};
}

QString RedisError::describe() const
{
    return QStringLiteral("Redis %1 error: %2").arg(kindName(kind), message);
}

} // namespace reclaim
