#include "preflight/clustercheck.h"

#include "bullmq/bullmqkeys.h"
#include "config/fencekeys.h"
#include "preflight/redischeck.h"
#include "redis/clusterclient.h"
#include "util/clusterslot.h"

namespace reclaim {

namespace {

const QString kReachable = QStringLiteral("redis.reachable");
const QString kCluster = QStringLiteral("redis.cluster");
const QString kSlotLock = QStringLiteral("redis.slot.lock");

QString slotItemId(const DomainConfig &domain)
{
    return QStringLiteral("redis.slot.%1").arg(domain.name);
}

// One master's own items (checkRedisNode), or why it could not be checked.
struct MasterItems
{
    HostPort address;
    CheckReport items;
    QString unreachable; // set when no connection could be opened
};

// The node items that checkRedisNode adds: every id after reachable, before cluster.
QStringList nodeItemIds()
{
    const QStringList all = redisCheckIds();
    return all.mid(1, all.indexOf(kCluster) - 1);
}

// One item out of every master's: the worst status, and the masters that have it by name,
// unless every master said the same.
void mergeItem(const QString &id, const QList<MasterItems> &masters, CheckReport &report)
{
    CheckStatus worst = CheckStatus::Pass;
    for (const MasterItems &m : masters)
        if (const CheckItem *item = m.items.item(id))
            worst = std::max(worst, item->status);
    QStringList summaries;
    QString fix;
    bool same = true;
    const CheckItem *first = masters.isEmpty() ? nullptr : masters.first().items.item(id);
    for (const MasterItems &m : masters) {
        const CheckItem *item = m.items.item(id);
        if (!item)
            continue;
        same = same && first && item->summary == first->summary;
        if (item->status != worst)
            continue;
        summaries << QStringLiteral("%1: %2").arg(m.address.describe(), item->summary);
        if (fix.isEmpty())
            fix = item->fix;
    }
    if (same && first)
        report.add(id, worst,
                   QStringLiteral("every master (%1): %2").arg(masters.size()).arg(first->summary),
                   fix);
    else
        report.add(id, worst, summaries.join(QStringLiteral("; ")), fix);
}

QString ownerOf(const ClusterSlotMap &map, int slot)
{
    const HostPort *owner = map.owner(slot);
    return owner ? owner->describe() : QString();
}

void addSlotItems(const ReclaimConfig &config, const ClusterSlotMap &map, CheckReport &report)
{
    // The lock, its generation counter (same tag), and the copies in the queues' slots.
    const QByteArray lock = config.run.lockKey.toUtf8();
    const int lockSlot = clusterKeySlot(lock);
    QStringList copies;
    bool lockServed = !ownerOf(map, lockSlot).isEmpty();
    for (const QByteArray &copy : fenceKeysOf(config).copiesFor(queuesOf(config))) {
        const int slot = clusterKeySlot(copy);
        const QString owner = ownerOf(map, slot);
        lockServed = lockServed && !owner.isEmpty();
        copies << QStringLiteral("%1 in slot %2 on %3")
                      .arg(QString::fromUtf8(copy))
                      .arg(slot)
                      .arg(owner.isEmpty() ? QStringLiteral("no master") : owner);
    }
    const QString lockWhere =
        QStringLiteral("%1 in slot %2 on %3%4")
            .arg(config.run.lockKey)
            .arg(lockSlot)
            .arg(ownerOf(map, lockSlot).isEmpty() ? QStringLiteral("no master")
                                                  : ownerOf(map, lockSlot),
                 copies.isEmpty() ? QStringLiteral("; every queue shares its slot, so no "
                                                   "generation copy is needed")
                                  : QStringLiteral("; generation copies: %1")
                                        .arg(copies.join(QStringLiteral(", "))));
    if (lockServed)
        report.add(kSlotLock, CheckStatus::Pass, lockWhere);
    else
        report.add(kSlotLock, CheckStatus::Fail,
                   lockWhere + QStringLiteral(": a slot no master serves leaves the lock "
                                              "untakeable, and every run is skipped"),
                   QStringLiteral("let the cluster serve every slot (redis-cli --cluster check, "
                                  "then --cluster fix)"));
    // Each domain's queues.
    for (const DomainConfig &d : config.domains) {
        QStringList where;
        QStringList unserved;
        for (const QString &queue : d.queues) {
            const QString name = QString::fromUtf8(bullmq::queueKeyPrefix(d.keyPrefix, queue));
            const int slot = clusterKeySlot(name.toUtf8());
            const QString owner = ownerOf(map, slot);
            where << QStringLiteral("%1* in slot %2 on %3")
                         .arg(name)
                         .arg(slot)
                         .arg(owner.isEmpty() ? QStringLiteral("no master") : owner);
            if (owner.isEmpty())
                unserved << name;
        }
        if (unserved.isEmpty())
            report.add(slotItemId(d), CheckStatus::Pass, where.join(QStringLiteral("; ")));
        else
            report.add(slotItemId(d), CheckStatus::Fail,
                       where.join(QStringLiteral("; ")) +
                           QStringLiteral(": every lookup in %1 is UNKNOWN until a master "
                                          "serves its slot")
                               .arg(unserved.join(QStringLiteral(", "))),
                       QStringLiteral("let the cluster serve every slot (redis-cli --cluster "
                                      "check, then --cluster fix)"));
    }
}

// The node items of each master, each with its own address for the TLS item.
QList<MasterItems> checkMasters(const ReclaimConfig &config, const QList<HostPort> &masters)
{
    const auto connect = ClusterClient::connectorFor(config.redis, config.run.redisTimeout);
    QList<MasterItems> out;
    for (const HostPort &master : masters) {
        MasterItems m{master, {}, {}};
        auto conn = connect(master);
        if (!conn) {
            m.unreachable = conn.error().message;
            m.items.couldNotCheck(nodeItemIds(), QStringLiteral("master %1 is unreachable: %2")
                                                     .arg(master.describe(), m.unreachable));
        } else {
            RedisEndpoint node = config.redis;
            node.cluster.reset();
            node.host = master.host;
            node.port = master.port;
            node.database = 0;
            (void)checkRedisNode(*conn, node, config, m.items);
        }
        out << m;
    }
    return out;
}

} // namespace

QStringList clusterSlotCheckIds(const ReclaimConfig &config)
{
    QStringList ids{kSlotLock};
    for (const DomainConfig &d : config.domains)
        ids << slotItemId(d);
    return ids;
}

std::optional<CheckedRedis> checkCluster(const ReclaimConfig &config, CheckReport &report)
{
    const QString seeds = config.redis.cluster->describe();
    auto client = std::make_unique<ClusterClient>(
        config.redis.cluster->seeds,
        ClusterClient::connectorFor(config.redis, config.run.redisTimeout));
    if (auto read = client->refreshSlotMap(); !read) {
        if (read.error().message.contains(QLatin1String("cluster support disabled"))) {
            report.add(kReachable, CheckStatus::Pass,
                       QStringLiteral("Redis at %1 answered").arg(seeds));
            report.add(kCluster, CheckStatus::Fail,
                       QStringLiteral("the URL is redis+cluster://, but %1 is not in cluster "
                                      "mode: %2")
                           .arg(seeds, read.error().message),
                       QStringLiteral("use redis:// (or rediss://) for a single node"));
            QStringList rest = redisCheckIds().mid(1);
            rest.removeAll(kCluster);
            report.couldNotCheck(rest, QStringLiteral("no slot map"));
            return std::nullopt;
        }
        reportRedisUnreachable(QStringLiteral("the seed nodes %1").arg(seeds),
                               QStringLiteral("no slot map: %1").arg(read.error().message), report);
        return std::nullopt;
    }
    const ClusterSlotMap &map = client->slotMap();
    const QList<HostPort> masters = map.masters();
    const QList<MasterItems> checked = checkMasters(config, masters);

    QStringList unreachable;
    for (const MasterItems &m : checked)
        if (!m.unreachable.isEmpty())
            unreachable << QStringLiteral("%1 (%2)").arg(m.address.describe(), m.unreachable);
    if (unreachable.isEmpty())
        report.add(kReachable, CheckStatus::Pass,
                   QStringLiteral("Redis Cluster at %1 answered, and so did each of its %2 masters")
                       .arg(seeds)
                       .arg(masters.size()));
    else
        report.add(kReachable, CheckStatus::Fail,
                   QStringLiteral("Redis Cluster at %1 gave its slot map, but %2 of its %3 "
                                  "masters did not answer: %4")
                       .arg(seeds)
                       .arg(unreachable.size())
                       .arg(masters.size())
                       .arg(unreachable.join(QStringLiteral(", "))),
                   QStringLiteral("every master must accept this host with the URL's user and "
                                  "password; the slots it serves are UNKNOWN to every run"));
    for (const QString &id : nodeItemIds())
        mergeItem(id, checked, report);

    const int served = map.servedSlots();
    const QString described = QStringLiteral("%1 of %2 slots served by %3 masters: %4")
                                  .arg(served)
                                  .arg(kClusterSlotCount)
                                  .arg(masters.size())
                                  .arg(map.describe());
    if (served == kClusterSlotCount)
        report.add(kCluster, CheckStatus::Pass,
                   QStringLiteral("cluster mode, as the URL says; ") + described);
    else
        report.add(kCluster, CheckStatus::Fail,
                   described + QStringLiteral(": keys in the others cannot be read or written"),
                   QStringLiteral("let the cluster serve every slot (redis-cli --cluster check, "
                                  "then --cluster fix)"));
    addHashTagItem(config, report);
    addSlotItems(config, map, report);
    return CheckedRedis(std::move(client));
}

} // namespace reclaim
