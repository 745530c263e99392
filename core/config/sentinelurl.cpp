#include "config/sentinelurl.h"

#include <QRegularExpression>
#include <QUrl>

namespace reclaim {

namespace {

const QLatin1String kSentinelForm(
    "redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/masterName[/database]");

// One "host[:port]" of the sentinel list. Only host and port are ever quoted in a message:
// the userinfo was split off before.
Expected<SentinelSpec::Node, QString> parseNode(const QString &text, int index)
{
    const QString which = QStringLiteral("sentinel %1").arg(index + 1);
    SentinelSpec::Node node;
    QString portText;
    if (text.startsWith(QLatin1Char('['))) {
        const qsizetype close = text.indexOf(QLatin1Char(']'));
        if (close < 0)
            return unexpected(QStringLiteral("%1: the IPv6 host has no closing ']'").arg(which));
        node.host = text.mid(1, close - 1);
        const QString after = text.mid(close + 1);
        if (!after.isEmpty() && !after.startsWith(QLatin1Char(':')))
            return unexpected(QStringLiteral("%1: unexpected text after the IPv6 host [%2]")
                                  .arg(which, node.host));
        portText = after.mid(1);
    } else {
        const qsizetype colon = text.indexOf(QLatin1Char(':'));
        node.host = colon < 0 ? text : text.left(colon);
        portText = colon < 0 ? QString() : text.mid(colon + 1);
        if (portText.contains(QLatin1Char(':')))
            return unexpected(QStringLiteral("%1: more than one ':' after the host (an IPv6 host "
                                             "needs brackets, as in [::1]:port)")
                                  .arg(which));
    }
    if (node.host.isEmpty())
        return unexpected(QStringLiteral("%1: the host is missing").arg(which));
    if (portText.isEmpty())
        return node;
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,5}$"));
    if (!digits.match(portText).hasMatch())
        return unexpected(
            QStringLiteral("%1: port '%2' is not a number from 1 to 65535").arg(which, portText));
    node.port = portText.toInt();
    if (node.port < 1 || node.port > 65535)
        return unexpected(
            QStringLiteral("%1: port %2 is out of range (1 to 65535)").arg(which, portText));
    return node;
}

} // namespace

QString SentinelSpec::describe() const
{
    QStringList nodes;
    for (const Node &n : sentinels)
        nodes << (n.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2")
                                                    : QStringLiteral("%1:%2"))
                     .arg(n.host)
                     .arg(n.port);
    return nodes.join(QLatin1Char(',')) + QLatin1Char('/') + masterName;
}

Expected<RedisEndpoint, QString> parseSentinelUrl(const QString &text)
{
    const qsizetype schemeEnd = text.indexOf(QLatin1String("://"));
    if (schemeEnd < 0)
        return unexpected(QStringLiteral("not a URL (expected %1)").arg(kSentinelForm));
    const QString rest = text.mid(schemeEnd + 3);
    // Same rule as redis://: a raw '/', '?' or '#' in a password leaves its '@' in the path.
    const auto found = urlAuthority(rest);
    if (!found)
        return unexpected(found.error());
    const QString &authority = *found;
    const qsizetype at = authority.lastIndexOf(QLatin1Char('@'));
    RedisEndpoint e;
    if (at >= 0) {
        const QString userinfo = authority.left(at);
        const qsizetype colon = userinfo.indexOf(QLatin1Char(':'));
        e.user =
            QUrl::fromPercentEncoding(userinfo.left(colon < 0 ? userinfo.size() : colon).toUtf8());
        if (colon >= 0)
            e.password = QUrl::fromPercentEncoding(userinfo.mid(colon + 1).toUtf8());
    }
    SentinelSpec spec;
    const QStringList nodes = authority.mid(at + 1).split(QLatin1Char(','));
    for (qsizetype i = 0; i < nodes.size(); ++i) {
        auto node = parseNode(nodes.at(i), static_cast<int>(i));
        if (!node)
            return unexpected(node.error());
        spec.sentinels << *node;
    }
    const QString tail = rest.mid(authority.size());
    if (tail.contains(QLatin1Char('?')) || tail.contains(QLatin1Char('#')))
        return unexpected(QStringLiteral("redis+sentinel:// takes no options after '?' or '#' "
                                         "(expected %1)")
                              .arg(kSentinelForm));
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
