#include "config/fencekeys.h"

#include "util/clusterslot.h"

namespace reclaim {

FenceKeys::FenceKeys(const QString &lockKey, bool cluster)
    : m_lockKey(lockKey), m_generation(generationKeyFor(lockKey)), m_cluster(cluster)
{}

QByteArray FenceKeys::generationKeyFor(const QString &lockKey)
{
    return lockKey.toUtf8() + ":generation";
}

QByteArray FenceKeys::forQueue(const QString &keyPrefix, const QString &queue) const
{
    if (!m_cluster)
        return m_generation;
    // The queue's own keys are "<prefix>:<queue>:<name>": their tag is the queue's slot.
    const QByteArray base = (keyPrefix + QLatin1Char(':') + queue + QLatin1Char(':')).toUtf8();
    if (clusterKeySlot(base) == clusterKeySlot(m_generation))
        return m_generation;
    return '{' + clusterHashTag(base).toByteArray() + "}:reclaim:generation:" + m_lockKey.toUtf8();
}

QList<QByteArray> FenceKeys::copiesFor(const QList<QPair<QString, QString>> &prefixAndQueue) const
{
    QList<QByteArray> out;
    for (const auto &[prefix, queue] : prefixAndQueue) {
        const QByteArray key = forQueue(prefix, queue);
        if (key != m_generation && !out.contains(key))
            out << key;
    }
    return out;
}

FenceKeys fenceKeysOf(const ReclaimConfig &config)
{
    return FenceKeys(config.run.lockKey, config.redis.cluster.has_value());
}

QList<QPair<QString, QString>> queuesOf(const ReclaimConfig &config)
{
    QList<QPair<QString, QString>> out;
    for (const DomainConfig &d : config.domains)
        for (const QString &q : d.queues)
            out << qMakePair(d.keyPrefix, q);
    return out;
}

} // namespace reclaim
