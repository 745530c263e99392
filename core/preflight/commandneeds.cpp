#include "preflight/commandneeds.h"

#include "bullmq/bullmqkeys.h"
#include "bullmq/bullmqscripts.h"
#include "config/fencekeys.h"
#include "fencing/lockscripts.h"
#include "fencing/redislock.h"

namespace reclaim {

namespace {

// A job id no application uses: only the key's shape matters to an ACL key pattern.
const QByteArray kJobId = QByteArrayLiteral("reclaim-check");

RedisCommand cmd(std::initializer_list<QByteArray> parts)
{
    return RedisCommand(parts);
}

void addQueue(QList<CommandNeed> &out, const QString &prefix, const QString &queue,
              const QByteArray &generationKey)
{
    const auto k = [&](const char *suffix) {
        return bullmq::queueKey(prefix, queue, QLatin1String(suffix));
    };
    const QByteArray job = bullmq::queueKeyPrefix(prefix, queue) + kJobId;
    const QByteArray keyPrefix = bullmq::queueKeyPrefix(prefix, queue);
    const auto need = [&](const QString &script, RedisCommand argv) {
        const QString what =
            QStringLiteral("%1 %2 (%3)")
                .arg(QString::fromUtf8(argv.at(0)), QString::fromUtf8(argv.value(1)), script);
        out.append(CommandNeed{what, std::move(argv)});
    };
    // The scripts themselves, with the keys each is called with.
    const QList<QByteArray> probeKeys{k("completed"),   k("failed"),           k("delayed"),
                                      k("prioritized"), k("waiting-children"), k("wait"),
                                      k("paused"),      k("active"),           k("meta")};
    RedisCommand probe = bullmq::scripts::probe().evalsha(
        probeKeys, {keyPrefix, QByteArrayLiteral("10"), QByteArrayLiteral("1"), kJobId});
    out.append(CommandNeed{
        QStringLiteral("EVALSHA probe.lua on %1*").arg(QString::fromUtf8(keyPrefix)), probe});
    out.append(
        CommandNeed{QStringLiteral("EVALSHA scanpage.lua on %1*").arg(QString::fromUtf8(keyPrefix)),
                    bullmq::scripts::scanPage().evalsha(
                        {k("wait"), k("meta")},
                        {QByteArrayLiteral("list"), QByteArrayLiteral("1"), keyPrefix,
                         QByteArrayLiteral("0"), QByteArrayLiteral("0"), QByteArrayLiteral("0")})});
    out.append(CommandNeed{
        QStringLiteral("EVALSHA moves.lua on %1*").arg(QString::fromUtf8(keyPrefix)),
        bullmq::scripts::moves().evalsha({k("events")}, {QByteArray(), QByteArrayLiteral("1")})});
    out.append(CommandNeed{
        QStringLiteral("EVALSHA prioritized.lua on %1*").arg(QString::fromUtf8(keyPrefix)),
        bullmq::scripts::prioritized().evalsha({k("prioritized"), k("pc"), k("meta")},
                                               {keyPrefix, QByteArray(), QByteArrayLiteral("1")})});
    out.append(CommandNeed{
        QStringLiteral("EVALSHA enqueue.lua on %1*").arg(QString::fromUtf8(keyPrefix)),
        bullmq::scripts::enqueue().evalsha(
            {k("wait"), k("paused"), k("meta"), k("id"), k("completed"), k("failed"), k("delayed"),
             k("prioritized"), k("waiting-children"), k("active"), k("events"), k("marker"), job,
             generationKey, k("pc")},
            {kJobId, QByteArrayLiteral("n"), QByteArrayLiteral("{}"), QByteArrayLiteral("0"),
             QByteArrayLiteral("0"), QByteArrayLiteral("6"), QByteArray(), QByteArray()})});
    // What the scripts call, each on the key it touches.
    need(QStringLiteral("probe.lua, enqueue.lua"), cmd({"EXISTS", job}));
    need(QStringLiteral("enqueue.lua"), cmd({"DEL", job}));
    need(QStringLiteral("probe.lua"), cmd({"HMGET", job, "name"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HMSET", job, "name", "n"}));
    need(QStringLiteral("scanpage.lua"), cmd({"HGET", job, "data"}));
    need(QStringLiteral("probe.lua"), cmd({"PTTL", job + ":lock"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HMGET", k("meta"), "paused"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HGET", k("meta"), "paused"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HSET", k("meta"), "f", "v"}));
    need(QStringLiteral("probe.lua, scanpage.lua"), cmd({"HEXISTS", k("meta"), "paused"}));
    need(QStringLiteral("enqueue.lua"), cmd({"INCR", k("id")}));
    // A prioritized requeue (a retained job's priority carried over): the priority counter and
    // the prioritized set; a paused 4.x/5.x queue: the paused list.
    need(QStringLiteral("enqueue.lua"), cmd({"INCR", k("pc")}));
    need(QStringLiteral("enqueue.lua"), cmd({"ZADD", k("prioritized"), "0", "x"}));
    need(QStringLiteral("enqueue.lua"), cmd({"LPUSH", k("paused"), "x"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HMGET", k("meta"), "paused", "concurrency"}));
    need(QStringLiteral("enqueue.lua"), cmd({"HGET", job, "opts"}));
    for (const char *list : {"wait", "paused", "active"}) {
        need(QStringLiteral("probe.lua, scanpage.lua, enqueue.lua"), cmd({"LLEN", k(list)}));
        need(QStringLiteral("probe.lua, scanpage.lua, enqueue.lua"), cmd({"LPOS", k(list), "x"}));
        need(QStringLiteral("probe.lua, scanpage.lua"), cmd({"LRANGE", k(list), "0", "1"}));
        need(QStringLiteral("scanpage.lua"), cmd({"LINDEX", k(list), "0"}));
    }
    need(QStringLiteral("enqueue.lua"), cmd({"LPUSH", k("wait"), "x"}));
    need(QStringLiteral("enqueue.lua"), cmd({"XADD", k("events"), "*", "event", "added"}));
    need(QStringLiteral("moves.lua"), cmd({"EXISTS", k("events")}));
    need(QStringLiteral("moves.lua"), cmd({"XRANGE", k("events"), "-", "+", "COUNT", "1"}));
    need(QStringLiteral("moves.lua"), cmd({"XREVRANGE", k("events"), "+", "-", "COUNT", "1"}));
    need(QStringLiteral("moves.lua"), cmd({"XINFO", "STREAM", k("events")}));
    need(QStringLiteral("enqueue.lua"), cmd({"ZADD", k("marker"), "0", "0"}));
    for (const char *set : {"completed", "failed"})
        need(QStringLiteral("enqueue.lua"), cmd({"ZREM", k(set), "x"}));
    for (const char *set : {"completed", "failed", "delayed", "prioritized", "waiting-children"}) {
        need(QStringLiteral("probe.lua, scanpage.lua, enqueue.lua"), cmd({"ZSCORE", k(set), "x"}));
        need(QStringLiteral("scanpage.lua"), cmd({"ZCARD", k(set)}));
        need(QStringLiteral("scanpage.lua"), cmd({"ZRANGE", k(set), "0", "1"}));
        need(QStringLiteral("scanpage.lua"), cmd({"ZRANK", k(set), "x"}));
    }
    need(QStringLiteral("enqueue.lua"), cmd({"GET", generationKey}));
    need(QStringLiteral("prioritized.lua"), cmd({"GET", k("pc")}));
    need(QStringLiteral("prioritized.lua"),
         cmd({"ZRANGEBYSCORE", k("prioritized"), "-inf", "+inf", "LIMIT", "0", "1"}));
}

} // namespace

QList<QPair<QString, QString>> configuredQueues(const ReclaimConfig &config)
{
    QList<QPair<QString, QString>> out;
    for (const DomainConfig &d : config.domains)
        for (const QString &q : d.queues)
            if (!out.contains(qMakePair(d.keyPrefix, q)))
                out.append(qMakePair(d.keyPrefix, q));
    return out;
}

QList<CommandNeed> commandNeeds(const ReclaimConfig &config)
{
    QList<CommandNeed> out;
    const QByteArray lock = config.run.lockKey.toUtf8();
    const QByteArray generation = RedisLock::generationKeyFor(config.run.lockKey);
    const auto need = [&](const QString &where, RedisCommand argv) {
        const QString what =
            QStringLiteral("%1 %2 (%3)")
                .arg(QString::fromUtf8(argv.at(0)), QString::fromUtf8(argv.value(1)), where);
        out.append(CommandNeed{what, std::move(argv)});
    };
    // Loading a script after NOSCRIPT (redis/luascript.cpp).
    need(QStringLiteral("a script missing from the server's cache"),
         cmd({"SCRIPT", "LOAD", "return 1"}));
    // The lock (fencing/redislock.cpp and fencing/lua).
    out.append(CommandNeed{
        QStringLiteral("EVALSHA lockacquire.lua on %1").arg(config.run.lockKey),
        fencing::scripts::lockAcquire().evalsha({lock, generation}, {"t", "1000", "0"})});
    out.append(CommandNeed{QStringLiteral("EVALSHA lockrenew.lua on %1").arg(config.run.lockKey),
                           fencing::scripts::lockRenew().evalsha({lock}, {"t", "1000"})});
    out.append(CommandNeed{QStringLiteral("EVALSHA lockrelease.lua on %1").arg(config.run.lockKey),
                           fencing::scripts::lockRelease().evalsha({lock}, {"t"})});
    need(QStringLiteral("lockacquire.lua"), cmd({"SET", lock, "t", "NX", "PX", "1000"}));
    need(QStringLiteral("lockacquire.lua"), cmd({"INCR", generation}));
    need(QStringLiteral("lockacquire.lua"), cmd({"SET", generation, "1"}));
    need(QStringLiteral("the lock's scripts, the lock panel"), cmd({"GET", lock}));
    need(QStringLiteral("lockacquire.lua, the lock panel"), cmd({"GET", generation}));
    need(QStringLiteral("lockacquire.lua, the lock panel"), cmd({"PTTL", lock}));
    need(QStringLiteral("lockrenew.lua"), cmd({"PEXPIRE", lock, "1000"}));
    need(QStringLiteral("lockrelease.lua"), cmd({"DEL", lock}));
    // A cluster: the slot map, the ASK redirection, and the generation copies in the queues'
    // slots (config/fencekeys.h), raised as the lock is taken and compared by each enqueue.
    const FenceKeys fence = fenceKeysOf(config);
    if (config.redis.cluster) {
        need(QStringLiteral("reading the slot map"), cmd({"CLUSTER", "SHARDS"}));
        need(QStringLiteral("following an ASK redirection"), cmd({"ASKING"}));
        for (const QByteArray &copy : fence.copiesFor(configuredQueues(config))) {
            out.append(CommandNeed{
                QStringLiteral("EVALSHA generationraise.lua on %1").arg(QString::fromUtf8(copy)),
                fencing::scripts::generationRaise().evalsha({copy}, {"1"})});
            need(QStringLiteral("generationraise.lua, enqueue.lua"), cmd({"GET", copy}));
            need(QStringLiteral("generationraise.lua"), cmd({"SET", copy, "1"}));
        }
    }
    for (const auto &[prefix, queue] : configuredQueues(config))
        addQueue(out, prefix, queue, fence.forQueue(prefix, queue));
    return out;
}

} // namespace reclaim
