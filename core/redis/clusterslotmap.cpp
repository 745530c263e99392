#include "redis/clusterslotmap.h"

#include "util/clusterslot.h"

#include <QStringList>
#include <algorithm>
#include <optional>

namespace reclaim {

namespace {

RedisError badReply(const char *command, const QString &why)
{
    return RedisError{RedisError::Kind::Reply,
                      QStringLiteral("%1 answered in a shape this client does not know: %2")
                          .arg(QLatin1String(command), why)};
}

std::optional<int> slotNumber(const RedisValue &v)
{
    // Integers on every server seen; a string is taken too, as RESP does not promise either.
    std::optional<long long> n = v.toInteger();
    if (!n) {
        bool ok = false;
        const long long parsed = v.toBytes().value_or(QByteArray()).toLongLong(&ok);
        if (ok)
            n = parsed;
    }
    if (!n || *n < 0 || *n >= kClusterSlotCount)
        return std::nullopt;
    return static_cast<int>(*n);
}

// A node's address as the map gives it: an endpoint of "" or "?" is the node that answered.
QString hostOr(const QString &host, const HostPort &asked)
{
    return host.isEmpty() || host == QLatin1String("?") ? asked.host : host;
}

// One node of a CLUSTER SHARDS shard: a flat list of field names and values.
struct ShardNode
{
    QString endpoint;
    QString ip;
    int port = 0;
    int tlsPort = 0;
    QString role;
    QString health;
};

ShardNode readShardNode(const RedisValue &node)
{
    ShardNode out;
    for (qsizetype i = 0; i + 1 < node.elements.size(); i += 2) {
        const QByteArray field = node.elements.at(i).toBytes().value_or(QByteArray());
        const RedisValue &value = node.elements.at(i + 1);
        if (field == "endpoint")
            out.endpoint = value.toText();
        else if (field == "ip")
            out.ip = value.toText();
        else if (field == "port")
            out.port = static_cast<int>(value.toInteger().value_or(0));
        else if (field == "tls-port")
            out.tlsPort = static_cast<int>(value.toInteger().value_or(0));
        else if (field == "role")
            out.role = value.toText();
        else if (field == "health")
            out.health = value.toText();
    }
    return out;
}

} // namespace

ClusterSlotMap::ClusterSlotMap() : m_owner(kClusterSlotCount, -1) {}

qint16 ClusterSlotMap::indexOf(const HostPort &master)
{
    const qsizetype i = m_nodes.indexOf(master);
    if (i >= 0)
        return static_cast<qint16>(i);
    m_nodes << master;
    return static_cast<qint16>(m_nodes.size() - 1);
}

void ClusterSlotMap::assignRange(int first, int last, qint16 master)
{
    for (int s = first; s <= last; ++s)
        m_owner.at(static_cast<size_t>(s)) = master;
}

Expected<ClusterSlotMap, RedisError> ClusterSlotMap::fromShards(const RedisValue &reply,
                                                                const HostPort &asked, bool tls)
{
    if (!reply.isArray())
        return unexpected(badReply("CLUSTER SHARDS", QStringLiteral("not a list of shards")));
    ClusterSlotMap map;
    for (const RedisValue &shard : reply.elements) {
        const RedisValue *ranges = nullptr;
        const RedisValue *nodes = nullptr;
        for (qsizetype i = 0; i + 1 < shard.elements.size(); i += 2) {
            const QByteArray field = shard.elements.at(i).toBytes().value_or(QByteArray());
            if (field == "slots")
                ranges = &shard.elements.at(i + 1);
            else if (field == "nodes")
                nodes = &shard.elements.at(i + 1);
        }
        if (!ranges || !nodes || ranges->elements.size() % 2 != 0)
            return unexpected(
                badReply("CLUSTER SHARDS", QStringLiteral("a shard without slots or nodes")));
        if (ranges->elements.isEmpty())
            continue; // a shard that serves no slot (a master being added, or emptied)
        std::optional<HostPort> master;
        for (const RedisValue &n : nodes->elements) {
            const ShardNode node = readShardNode(n);
            // A master marked failed keeps its slots in the map until a replica is promoted:
            // it is still the owner, and a call to it fails as "could not look".
            if (node.role != QLatin1String("master"))
                continue;
            const int port = tls && node.tlsPort > 0 ? node.tlsPort : node.port;
            master =
                HostPort{hostOr(node.endpoint.isEmpty() ? node.ip : node.endpoint, asked), port};
            if (node.health != QLatin1String("fail"))
                break;
        }
        if (!master || master->port <= 0)
            return unexpected(
                badReply("CLUSTER SHARDS", QStringLiteral("a shard with slots and no master")));
        const qint16 index = map.indexOf(*master);
        for (qsizetype i = 0; i < ranges->elements.size(); i += 2) {
            const auto first = slotNumber(ranges->elements.at(i));
            const auto last = slotNumber(ranges->elements.at(i + 1));
            if (!first || !last || *first > *last)
                return unexpected(
                    badReply("CLUSTER SHARDS", QStringLiteral("a slot range out of 0-16383")));
            map.assignRange(*first, *last, index);
        }
    }
    return map;
}

Expected<ClusterSlotMap, RedisError> ClusterSlotMap::fromSlots(const RedisValue &reply,
                                                               const HostPort &asked)
{
    if (!reply.isArray())
        return unexpected(badReply("CLUSTER SLOTS", QStringLiteral("not a list of ranges")));
    ClusterSlotMap map;
    for (const RedisValue &range : reply.elements) {
        // {first, last, {ip, port, id, ...} of the master, then its replicas}
        if (range.elements.size() < 3 || !range.elements.at(2).isArray() ||
            range.elements.at(2).elements.size() < 2)
            return unexpected(
                badReply("CLUSTER SLOTS", QStringLiteral("a range without its master")));
        const auto first = slotNumber(range.elements.at(0));
        const auto last = slotNumber(range.elements.at(1));
        const RedisValue &node = range.elements.at(2);
        const auto port = node.elements.at(1).toInteger();
        if (!first || !last || *first > *last || !port || *port <= 0)
            return unexpected(
                badReply("CLUSTER SLOTS", QStringLiteral("a slot range or port out of range")));
        map.assignRange(*first, *last,
                        map.indexOf(HostPort{hostOr(node.elements.at(0).toText(), asked),
                                             static_cast<int>(*port)}));
    }
    return map;
}

const HostPort *ClusterSlotMap::owner(int slot) const
{
    if (slot < 0 || slot >= kClusterSlotCount)
        return nullptr;
    const qint16 i = m_owner.at(static_cast<size_t>(slot));
    return i < 0 ? nullptr : &m_nodes.at(i);
}

const HostPort *ClusterSlotMap::anyMaster() const
{
    for (const qint16 i : m_owner)
        if (i >= 0)
            return &m_nodes.at(i);
    return nullptr;
}

void ClusterSlotMap::assign(int slot, const HostPort &master)
{
    if (slot >= 0 && slot < kClusterSlotCount)
        m_owner.at(static_cast<size_t>(slot)) = indexOf(master);
}

QList<HostPort> ClusterSlotMap::masters() const
{
    QList<bool> serving(m_nodes.size(), false);
    for (const qint16 i : m_owner)
        if (i >= 0)
            serving[i] = true;
    QList<HostPort> out;
    for (qsizetype i = 0; i < m_nodes.size(); ++i)
        if (serving.at(i))
            out << m_nodes.at(i);
    return out;
}

int ClusterSlotMap::servedSlots() const
{
    return static_cast<int>(
        std::count_if(m_owner.begin(), m_owner.end(), [](qint16 i) { return i >= 0; }));
}

QString ClusterSlotMap::describe() const
{
    QStringList ranges;
    int start = 0;
    for (int s = 1; s <= kClusterSlotCount; ++s) {
        const bool ends = s == kClusterSlotCount || m_owner.at(static_cast<size_t>(s)) !=
                                                        m_owner.at(static_cast<size_t>(start));
        if (!ends)
            continue;
        const qint16 i = m_owner.at(static_cast<size_t>(start));
        const QString range =
            start == s - 1 ? QString::number(start) : QStringLiteral("%1-%2").arg(start).arg(s - 1);
        ranges << QStringLiteral("%1 %2").arg(range, i < 0 ? QStringLiteral("(no master)")
                                                           : m_nodes.at(i).describe());
        start = s;
    }
    return ranges.join(QStringLiteral("; "));
}

} // namespace reclaim
