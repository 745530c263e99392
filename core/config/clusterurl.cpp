#include "config/clusterurl.h"

#include <QStringList>

namespace reclaim {

namespace {

const QLatin1String
    kClusterForm("redis[s]+cluster://[[user]:password@]host[:port][,host[:port]...]");

} // namespace

QString ClusterSpec::describe() const
{
    QStringList nodes;
    for (const HostPort &n : seeds)
        nodes << n.describe();
    return nodes.join(QLatin1Char(','));
}

Expected<RedisEndpoint, QString> parseClusterUrl(const QString &text)
{
    const qsizetype schemeEnd = text.indexOf(QLatin1String("://"));
    if (schemeEnd < 0)
        return unexpected(QStringLiteral("not a URL (expected %1)").arg(kClusterForm));
    const QString rest = text.mid(schemeEnd + 3);
    // Same rule as redis://: a raw '/', '?' or '#' in a password leaves its '@' in the path.
    const auto found = urlAuthority(rest);
    if (!found)
        return unexpected(found.error());
    const AuthorityParts parts = splitAuthority(*found);
    RedisEndpoint e;
    e.user = parts.user;
    e.password = parts.password;
    auto seeds = parseHostList(parts.hosts, 6379, QStringLiteral("node"));
    if (!seeds)
        return unexpected(seeds.error());
    const QString tail = rest.mid(found->size());
    if (tail.contains(QLatin1Char('?')) || tail.contains(QLatin1Char('#')))
        return unexpected(QStringLiteral("redis+cluster:// takes no options after '?' or '#' "
                                         "(expected %1)")
                              .arg(kClusterForm));
    if (!tail.isEmpty() && tail != QLatin1String("/") && tail != QLatin1String("/0"))
        return unexpected(QStringLiteral("a Redis Cluster has database 0 only, so the URL "
                                         "names no other (found path '%1'; expected %2)")
                              .arg(tail, kClusterForm));
    // Until the slot map names the masters, host and port are the first seed's: only there so
    // nothing reads an empty host.
    e.host = seeds->first().host;
    e.port = seeds->first().port;
    e.cluster = ClusterSpec{std::move(*seeds)};
    return e;
}

} // namespace reclaim
