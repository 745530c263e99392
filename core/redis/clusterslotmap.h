// Which master serves each of a Redis Cluster's 16384 slots, as one node described the cluster
// (CLUSTER SHARDS on Redis 7 and later, CLUSTER SLOTS before), patched slot by slot as MOVED
// replies correct it between two full reads.
#pragma once

#include "config/hostport.h"
#include "ports/rediserror.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QList>
#include <vector>

namespace reclaim {

class ClusterSlotMap final
{
public:
    ClusterSlotMap();

    // `asked` is the node that answered: a master listed without an address ("" or "?", a
    // node that does not know how it is reached) is that node. With `tls`, a node's
    // "tls-port" is the one to connect to.
    static Expected<ClusterSlotMap, RedisError> fromShards(const RedisValue &reply,
                                                           const HostPort &asked, bool tls);
    static Expected<ClusterSlotMap, RedisError> fromSlots(const RedisValue &reply,
                                                          const HostPort &asked);

    // The master serving `slot`, or null when none does (the map is empty, or the cluster has
    // a slot no master serves).
    const HostPort *owner(int slot) const;
    void assign(int slot, const HostPort &master);

    // A master serving some slot (the one of the lowest served slot), for a keyless command;
    // null when the map is empty.
    const HostPort *anyMaster() const;

    // Every master serving at least one slot, in the order the map first named them.
    QList<HostPort> masters() const;
    int servedSlots() const;
    bool isEmpty() const { return servedSlots() == 0; }

    // "0-5460 127.0.0.1:7000; 5461-10922 127.0.0.1:7001; ...": for --check and errors.
    QString describe() const;

private:
    qint16 indexOf(const HostPort &master);
    void assignRange(int first, int last, qint16 master);

    QList<HostPort> m_nodes;
    std::vector<qint16> m_owner; // per slot: an index into m_nodes, -1 when no master serves it
};

} // namespace reclaim
