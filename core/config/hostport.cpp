#include "config/hostport.h"

#include <QRegularExpression>
#include <QStringList>

namespace reclaim {

namespace {

Expected<HostPort, QString> parseOne(const QString &text, int defaultPort, const QString &which)
{
    HostPort node{QString(), defaultPort};
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

QString HostPort::describe() const
{
    return (host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2") : QStringLiteral("%1:%2"))
        .arg(host)
        .arg(port);
}

Expected<QList<HostPort>, QString> parseHostList(const QString &text, int defaultPort,
                                                 const QString &what)
{
    QList<HostPort> out;
    const QStringList parts = text.split(QLatin1Char(','));
    for (qsizetype i = 0; i < parts.size(); ++i) {
        auto node =
            parseOne(parts.at(i), defaultPort, QStringLiteral("%1 %2").arg(what).arg(i + 1));
        if (!node)
            return unexpected(node.error());
        out << *node;
    }
    return out;
}

} // namespace reclaim
