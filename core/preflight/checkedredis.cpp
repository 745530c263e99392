#include "preflight/checkedredis.h"

namespace reclaim {

CheckedRedis::CheckedRedis(RedisConnection node) : m_node(std::move(node)) {}

CheckedRedis::CheckedRedis(std::unique_ptr<ClusterClient> cluster)
    : m_cluster(std::move(cluster)), m_masters(m_cluster->slotMap().masters())
{}

RedisChannel &CheckedRedis::channel()
{
    if (m_cluster)
        return *m_cluster;
    return *m_node;
}

qsizetype CheckedRedis::keyNodeCount() const
{
    return m_cluster ? m_masters.size() : 1;
}

QString CheckedRedis::keyNodeName(qsizetype index) const
{
    return m_cluster ? m_masters.at(index).describe() : QString();
}

RedisResult CheckedRedis::commandOnKeyNode(qsizetype index, const RedisCommand &argv)
{
    if (m_cluster)
        return m_cluster->commandOn(m_masters.at(index), argv);
    return m_node->command(argv);
}

} // namespace reclaim
