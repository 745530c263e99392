// One "host[:port]" of a URL that lists several servers (the sentinels of redis+sentinel://, the
// seed nodes of redis+cluster://), and the parser of such a list.
#pragma once

#include "util/expected.h"

#include <QList>
#include <QString>

namespace reclaim {

struct HostPort
{
    QString host;
    int port = 0;

    // "host:port", "[::1]:port" for an IPv6 host.
    QString describe() const;
    bool operator==(const HostPort &) const = default;
};

// "h1[:port],h2[:port],..." into its servers, `defaultPort` where none is written. Each error
// names the server by its place in the list as "<what> N" ("sentinel 2: the host is missing").
// Only hosts and ports are ever quoted: the caller splits the userinfo off first.
Expected<QList<HostPort>, QString> parseHostList(const QString &text, int defaultPort,
                                                 const QString &what);

} // namespace reclaim
