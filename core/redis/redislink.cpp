#include "redis/redislink.h"

#include "redis/masterlocator.h"

namespace reclaim {

RedisLink::RedisLink(RedisEndpoint endpoint, std::chrono::milliseconds timeout)
    : m_endpoint(std::move(endpoint)), m_timeout(timeout)
{}

qint64 RedisLink::roundTrips() const
{
    return m_closedRoundTrips + (m_conn ? m_conn->roundTrips() : 0);
}

void RedisLink::startRun()
{
    if (!m_endpoint.sentinel || !m_conn)
        return;
    m_closedRoundTrips += m_conn->roundTrips();
    m_conn.reset();
}

Expected<RedisConnection *, RedisError> RedisLink::connection()
{
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
