#include "config/sentinelurl.h"

#include <QRegularExpression>

namespace reclaim {

namespace {

const QLatin1String kSentinelForm(
    "redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/masterName[/database]");

} // namespace

QString SentinelSpec::describe() const
{
    QStringList nodes;
    for (const Node &n : sentinels)
        nodes << n.describe();
    return nodes.join(QLatin1Char(',')) + QLatin1Char('/') + masterName;
}

Expected<RedisEndpoint, QString> parseSentinelUrl(const QString &text)
{
    const auto url = splitServerListUrl(text, QLatin1String("redis+sentinel"), kSentinelForm);
    if (!url)
        return unexpected(url.error());
    RedisEndpoint e;
    e.user = url->user;
    e.password = url->password;
    SentinelSpec spec;
    auto nodes = parseHostList(url->hosts, 26379, QStringLiteral("sentinel"));
    if (!nodes)
        return unexpected(nodes.error());
    spec.sentinels = std::move(*nodes);
    const QString &tail = url->path;
    const QStringList path = tail.mid(1).split(QLatin1Char('/'));
    spec.masterName = path.value(0);
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9._-]+$"));
    if (spec.masterName.isEmpty())
        return unexpected(QStringLiteral("no master name (expected %1)").arg(kSentinelForm));
    if (!name.match(spec.masterName).hasMatch())
        return unexpected(
            QStringLiteral("master name '%1' is not a plain name (letters, digits, '.', '_', '-')")
                .arg(spec.masterName));
    if (path.size() > 2 || (path.size() == 2 && path.at(1).isEmpty()))
        return unexpected(QStringLiteral("unexpected path after the master name (expected %1)")
                              .arg(kSentinelForm));
    if (path.size() == 2) {
        bool ok = false;
        e.database = path.at(1).toInt(&ok);
        if (!ok || e.database < 0)
            return unexpected(QStringLiteral("database '%1' is not a number").arg(path.at(1)));
    }
    // Until a sentinel names the master, host and port are the first sentinel's: never used to
    // connect (RedisLink asks the sentinels first), only there so nothing reads an empty host.
    e.host = spec.sentinels.first().host;
    e.port = spec.sentinels.first().port;
    e.sentinel = spec;
    return e;
}

} // namespace reclaim
