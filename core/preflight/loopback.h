// Whether a configured host is this machine: traffic that never leaves it needs no encryption.
#pragma once

#include <QHostAddress>
#include <QString>

namespace reclaim {

inline bool isLoopbackHost(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

} // namespace reclaim
