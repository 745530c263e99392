// Where a Redis Cluster is found: the seed nodes asked for the slot map, in order.
#pragma once

#include "config/hostport.h"

#include <QList>
#include <QString>

namespace reclaim {

struct ClusterSpec
{
    // Any nodes of the cluster, masters or replicas: the first that answers gives the slot map,
    // and from then on the map names the masters to talk to.
    QList<HostPort> seeds;

    // "h1:6379,h2:6379": the part of the URL that names no secret.
    QString describe() const;
};

} // namespace reclaim
