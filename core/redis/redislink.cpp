#include "redis/redislink.h"

#include "redis/masterlocator.h"

namespace reclaim {

RedisLink::RedisLink(RedisEndpoint endpoint, std::chrono::milliseconds timeout)
    : m_endpoint(std::move(endpoint)), m_timeout(timeout)
{}

qint64 RedisLink::roundTrips() const
{
    return m_closedRoundTrips + (m_conn ? m_conn->roundTrips() : 0) +
           (m_cluster ? m_cluster->roundTrips() : 0);
}

RedisChannel *RedisLink::current()
{
    if (m_cluster)
        return m_cluster.get();
    return m_conn ? &*m_conn : nullptr;
}

void RedisLink::startRun()
{
    if (m_cluster)
        m_cluster->refreshBeforeNextCall();
    if (!m_endpoint.sentinel || !m_conn)
        return;
    m_closedRoundTrips += m_conn->roundTrips();
    m_conn.reset();
}

Expected<RedisChannel *, RedisError> RedisLink::connection()
{
    if (m_endpoint.cluster) {
        if (!m_cluster)
            m_cluster = std::make_unique<ClusterClient>(
                m_endpoint.cluster->seeds, ClusterClient::connectorFor(m_endpoint, m_timeout));
        return m_cluster.get();
    }
    if (m_conn && !m_conn->isBroken())
        return &*m_conn;
    if (m_conn) {
        m_closedRoundTrips += m_conn->roundTrips();
        m_conn.reset();
    }
    auto opened = openMaster(m_endpoint, m_timeout);
    if (!opened)
        return unexpected(opened.error());
    m_conn.emplace(std::move(*opened));
    return &*m_conn;
}

} // namespace reclaim
