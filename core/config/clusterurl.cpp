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
    const auto url = splitServerListUrl(text, QLatin1String("redis+cluster"), kClusterForm);
    if (!url)
        return unexpected(url.error());
    RedisEndpoint e;
    e.user = url->user;
    e.password = url->password;
    auto seeds = parseHostList(url->hosts, 6379, QStringLiteral("node"));
    if (!seeds)
        return unexpected(seeds.error());
    const QString &tail = url->path;
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
