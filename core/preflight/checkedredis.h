// What the queue and lock items of `reclaim --check` read Redis through, once the Redis items
// connected: one node, or a Redis Cluster routed by slot, whose every master a keyspace SCAN
// has to walk (a SCAN sees only the keys of the node it is sent to).
#pragma once

#include "redis/clusterclient.h"
#include "redis/redischannel.h"
#include "redis/redisconnection.h"

#include <memory>
#include <optional>

namespace reclaim {

class CheckedRedis final
{
public:
    explicit CheckedRedis(RedisConnection node);
    explicit CheckedRedis(std::unique_ptr<ClusterClient> cluster);

    // Routed commands: to the node, or to the master of the keys' slot.
    RedisChannel &channel();

    // The nodes that hold keys: the one node, or each master serving a slot.
    qsizetype keyNodeCount() const;
    // "127.0.0.1:7001" for a cluster's master; empty for the one node.
    QString keyNodeName(qsizetype index) const;
    // A command that reads that node's own keys (SCAN).
    RedisResult commandOnKeyNode(qsizetype index, const RedisCommand &argv);

    // Null on one node.
    const ClusterClient *cluster() const { return m_cluster.get(); }

private:
    std::optional<RedisConnection> m_node;
    std::unique_ptr<ClusterClient> m_cluster;
    QList<HostPort> m_masters;
};

} // namespace reclaim
