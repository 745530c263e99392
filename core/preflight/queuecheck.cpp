#include "preflight/queuecheck.h"

#include "bullmq/bullmqkeys.h"
#include "bullmq/bullmqlayout.h"
#include "preflight/commandneeds.h"

#include <QRegularExpression>
#include <QSet>

namespace reclaim {

namespace {

// A bounded look for workers' job locks: SCAN touches at most this many keys in all.
constexpr int kScanRounds = 20;
constexpr int kScanCount = 1000;

struct WorkerScan
{
    QHash<QString, int> locks; // "<prefix>:<queue>:" -> job locks seen
    qint64 keysScanned = 0;
    bool complete = false;
    QString error;
};

// One node's part of the look: SCAN from cursor 0 until it ends or the rounds run out.
bool scanNode(CheckedRedis &redis, qsizetype node, const QList<QPair<QString, QString>> &queues,
              WorkerScan &scan)
{
    const QString where = redis.keyNodeName(node).isEmpty()
                              ? QString()
                              : QStringLiteral(" on %1").arg(redis.keyNodeName(node));
    QByteArray cursor = QByteArrayLiteral("0");
    for (int round = 0; round < kScanRounds; ++round) {
        auto r = redis.commandOnKeyNode(
            node, {QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("MATCH"),
                   QByteArrayLiteral("*:lock"), QByteArrayLiteral("COUNT"),
                   QByteArray::number(kScanCount)});
        if (!r) {
            // The connection's errors mostly name their server already.
            const bool named =
                !where.isEmpty() && r.error().message.contains(redis.keyNodeName(node));
            scan.error = r.error().message + (named ? QString() : where);
            return false;
        }
        if (!r->isArray() || r->elements.size() != 2) {
            scan.error = QStringLiteral("SCAN answered something unexpected%1").arg(where);
            return false;
        }
        scan.keysScanned += kScanCount;
        for (const RedisValue &key : r->elements.at(1).elements) {
            const QByteArray k = key.toBytes().value_or(QByteArray());
            for (const auto &[prefix, queue] : queues) {
                const QByteArray p = bullmq::queueKeyPrefix(prefix, queue);
                // A job's lock is "<prefix>:<queue>:<job id>:lock".
                if (k.startsWith(p) && k.size() > p.size() + 5)
                    scan.locks[QString::fromUtf8(p)] += 1;
            }
        }
        cursor = r->elements.at(0).toBytes().value_or(QByteArrayLiteral("0"));
        if (cursor == "0")
            return true;
    }
    return false;
}

// Every node that holds keys (a cluster's masters each hold their own slots' keys), each up to
// the same bound.
WorkerScan scanWorkerLocks(CheckedRedis &redis, const QList<QPair<QString, QString>> &queues)
{
    WorkerScan scan;
    scan.complete = true;
    for (qsizetype node = 0; node < redis.keyNodeCount(); ++node) {
        const bool done = scanNode(redis, node, queues, scan);
        scan.complete = scan.complete && done;
        if (!scan.error.isEmpty())
            break;
    }
    return scan;
}

QString id(const QString &prefix, const QString &queue, const char *item)
{
    return QStringLiteral("queue.%1:%2.%3").arg(prefix, queue, QLatin1String(item));
}

const QStringList kLists{QStringLiteral("wait"), QStringLiteral("active"),
                         QStringLiteral("paused")};
const QStringList kSets{QStringLiteral("delayed"), QStringLiteral("prioritized"),
                        QStringLiteral("waiting-children"), QStringLiteral("completed"),
                        QStringLiteral("failed")};

void checkOne(const QString &prefix, const QString &queue, const QString &ifUnstamped,
              RedisChannel &conn, const WorkerScan &scan, CheckReport &report)
{
    const auto k = [&](const QString &s) {
        return bullmq::queueKey(prefix, queue, s);
    };
    QList<RedisCommand> batch{
        {QByteArrayLiteral("EXISTS"), k(QStringLiteral("meta"))},
        {QByteArrayLiteral("HMGET"), k(QStringLiteral("meta")), QByteArrayLiteral("version"),
         QByteArrayLiteral("paused")},
        {QByteArrayLiteral("EXISTS"), k(QStringLiteral("stalled-check"))},
    };
    for (const QString &l : kLists)
        batch << RedisCommand{QByteArrayLiteral("LLEN"), k(l)};
    for (const QString &s : kSets)
        batch << RedisCommand{QByteArrayLiteral("ZCARD"), k(s)};
    const QString name = prefix + QLatin1Char(':') + queue;
    const QStringList ids = queueCheckIds(prefix, queue);
    auto replies = conn.pipeline(batch);
    QString error = replies ? QString() : replies.error().message;
    if (replies)
        for (const RedisResult &r : *replies)
            if (!r && error.isEmpty())
                error = r.error().message;
    if (!error.isEmpty()) {
        report.couldNotCheck(ids, QStringLiteral("reading queue %1: %2").arg(name, error));
        return;
    }
    const bool hasMeta = replies->at(0)->toInteger().value_or(0) == 1;
    const RedisValue &fields = *replies->at(1);
    const QString version = fields.elements.value(0).toText();
    const bool paused = !fields.elements.value(1).isNil();
    const bool stalledCheck = replies->at(2)->toInteger().value_or(0) == 1;
    QStringList counts;
    qint64 total = 0;
    for (qsizetype i = 0; i < kLists.size() + kSets.size(); ++i) {
        const qint64 n = replies->at(3 + i)->toInteger().value_or(0);
        total += n;
        counts << QStringLiteral("%1 %2").arg((kLists + kSets).at(i)).arg(n);
    }

    if (hasMeta || total > 0)
        report.add(ids.at(0), CheckStatus::Pass,
                   QStringLiteral("queue %1 exists (%2 jobs in its states)").arg(name).arg(total));
    else
        report.add(ids.at(0), CheckStatus::Warn,
                   QStringLiteral("queue %1 has no meta key and no jobs: a queue never used, or a "
                                  "wrong queue name or key prefix (then every lookup finds "
                                  "nothing and candidates look ABSENT)")
                       .arg(name),
                   QStringLiteral("compare domains[].queues and keyPrefix with the application's "
                                  "Queue names and prefix"));

    // Which layout a requeue into this queue writes, and why.
    if (const BullmqLayout assumed = BullmqLayout::forWriting(version, ifUnstamped);
        assumed.assumed) {
        report.add(
            ids.at(1), CheckStatus::Pass,
            QStringLiteral("no layout version stamp%1: requeues write BullMQ %2.x's add, as "
                           "domains[].bullmqIfUnstamped says (the application's Queue "
                           "stamps the queue again when it next opens it)")
                .arg(hasMeta ? QString() : QStringLiteral(" (no meta key)"), assumed.familyTag()));
    } else if (!hasMeta) {
        report.add(ids.at(1), CheckStatus::Warn,
                   QStringLiteral("no meta key, so no layout version: requeues into %1 are "
                                  "refused")
                       .arg(name),
                   QStringLiteral("run the check again once the application has used the queue, "
                                  "or set domains[].bullmqIfUnstamped to the BullMQ major the "
                                  "application runs (after a Redis lost its data)"));
    } else if (const BullmqLayout layout = BullmqLayout::fromMetaVersion(version);
               layout.writable()) {
        report.add(ids.at(1), CheckStatus::Pass,
                   QStringLiteral("layout version %1 (BullMQ %2.x, read and written)")
                       .arg(version, layout.familyTag()));
    } else if (layout.readable()) {
        report.add(ids.at(1), CheckStatus::Warn,
                   QStringLiteral("%1: its jobs are read, but requeues into it are refused")
                       .arg(layout.refusal(name)),
                   QStringLiteral("let the application open the queue with its BullMQ Queue once "
                                  "(that stamps the version), then check again; or set "
                                  "domains[].bullmqIfUnstamped"));
    } else {
        report.add(ids.at(1), CheckStatus::Fail,
                   QStringLiteral("%1: a run takes this queue's candidates as UNKNOWN and writes "
                                  "nothing to it")
                       .arg(layout.refusal(name)),
                   QStringLiteral("run a BullMQ 4-6 application on this queue, or leave the queue "
                                  "out of the configuration until Reclaim supports its layout"));
    }

    if (paused)
        report.add(
            ids.at(2), CheckStatus::Warn,
            QStringLiteral("queue %1 is paused: its jobs wait until it is resumed (they "
                           "count as SCHEDULED)")
                .arg(name),
            QStringLiteral("resume the queue (Queue.resume()) if the pause is not intended"));
    else
        report.add(ids.at(2), CheckStatus::Pass, QStringLiteral("not paused"));

    report.add(ids.at(3), CheckStatus::Pass, counts.join(QStringLiteral(", ")));

    const int locks = scan.locks.value(QString::fromUtf8(bullmq::queueKeyPrefix(prefix, queue)));
    if (!scan.error.isEmpty())
        report.add(ids.at(4), stalledCheck ? CheckStatus::Pass : CheckStatus::Fail,
                   stalledCheck ? QStringLiteral("a worker ran its stalled check recently "
                                                 "(stalled-check key set)")
                                : QStringLiteral("could not check: SCAN for workers' job locks: %1")
                                      .arg(scan.error));
    else if (locks > 0 || stalledCheck)
        report.add(ids.at(4), CheckStatus::Pass,
                   locks > 0 ? QStringLiteral("a worker is alive: %1 job lock(s) held").arg(locks)
                             : QStringLiteral("a worker ran its stalled check recently "
                                              "(stalled-check key set)"));
    else
        report.add(
            ids.at(4), CheckStatus::Warn,
            QStringLiteral("no worker seen: no job lock (%1%2) and no stalled-check key; "
                           "requeued jobs will wait")
                .arg(name,
                     scan.complete
                         ? QStringLiteral(":*:lock in the whole keyspace")
                         : QStringLiteral(":*:lock in the first %1 keys").arg(scan.keysScanned)),
            QStringLiteral("start the application's worker for %1").arg(queue));
}

} // namespace

QStringList queueCheckIds(const QString &prefix, const QString &queue)
{
    return {id(prefix, queue, "exists"), id(prefix, queue, "version"), id(prefix, queue, "paused"),
            id(prefix, queue, "jobs"), id(prefix, queue, "worker")};
}

void checkQueues(const ReclaimConfig &config, CheckedRedis *redis, CheckReport &report)
{
    const auto queues = configuredQueues(config);
    if (!redis) {
        for (const auto &[prefix, queue] : queues)
            report.couldNotCheck(queueCheckIds(prefix, queue),
                                 QStringLiteral("Redis is unreachable"));
        return;
    }
    const WorkerScan scan = scanWorkerLocks(*redis, queues);
    for (const auto &[prefix, queue] : queues) {
        QString ifUnstamped; // the loader refuses two domains assuming two majors for one queue
        for (const DomainConfig &d : config.domains)
            if (d.keyPrefix == prefix && d.queues.contains(queue) && !d.bullmqIfUnstamped.isEmpty())
                ifUnstamped = d.bullmqIfUnstamped;
        checkOne(prefix, queue, ifUnstamped, redis->channel(), scan, report);
    }
}

} // namespace reclaim
