// Where a Sentinel-monitored Redis is found: the sentinels to ask, in order, and the master's name.
#pragma once

#include "config/hostport.h"

#include <QList>
#include <QString>

namespace reclaim {

struct SentinelSpec
{
    using Node = HostPort;

    QList<Node> sentinels; // asked in this order; the first that knows the master answers
    QString masterName;
    // The sentinels' own credentials (Sentinel's `requirepass` or an ACL user on the sentinels,
    // connections.redisSentinel), never the master's; empty: the sentinels require none.
    QString user;
    QString password;

    // "h1:26379,h2:26379/mymaster": the part of the URL that names no secret.
    QString describe() const;
};

} // namespace reclaim
