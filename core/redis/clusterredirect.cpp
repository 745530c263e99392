#include "redis/clusterredirect.h"

#include <QStringList>

namespace reclaim {

namespace {

// "MOVED 3999 127.0.0.1:6381", "ASK 3999 [::1]:6381" or "ASK 3999 ::1:6381": the port follows
// the last ':'.
std::optional<ClusterRedirect> parseTarget(ClusterRedirect::Kind kind, const QStringList &words,
                                           const HostPort &answeredBy)
{
    if (words.size() < 3)
        return std::nullopt;
    bool ok = false;
    const int slot = words.at(1).toInt(&ok);
    if (!ok || slot < 0 || slot > 16383)
        return std::nullopt;
    const QString &address = words.at(2);
    const qsizetype colon = address.lastIndexOf(QLatin1Char(':'));
    if (colon < 0)
        return std::nullopt;
    const int port = address.mid(colon + 1).toInt(&ok);
    if (!ok || port <= 0 || port > 65535)
        return std::nullopt;
    QString host = address.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    if (host.isEmpty() || host == QLatin1String("?"))
        host = answeredBy.host;
    return ClusterRedirect{kind, slot, HostPort{host, port}};
}

} // namespace

std::optional<ClusterRedirect> parseClusterRedirect(const RedisError &error,
                                                    const HostPort &answeredBy)
{
    if (error.kind != RedisError::Kind::Server)
        return std::nullopt;
    const QStringList words = error.message.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty())
        return std::nullopt;
    const QString &code = words.first();
    if (code == QLatin1String("MOVED"))
        return parseTarget(ClusterRedirect::Kind::Moved, words, answeredBy);
    if (code == QLatin1String("ASK"))
        return parseTarget(ClusterRedirect::Kind::Ask, words, answeredBy);
    if (code == QLatin1String("TRYAGAIN"))
        return ClusterRedirect{ClusterRedirect::Kind::TryAgain, -1, answeredBy};
    if (code == QLatin1String("CLUSTERDOWN"))
        return ClusterRedirect{ClusterRedirect::Kind::ClusterDown, -1, answeredBy};
    return std::nullopt;
}

} // namespace reclaim
