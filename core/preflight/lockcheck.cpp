#include "preflight/lockcheck.h"

#include "domain/locktoken.h"
#include "fencing/pgfence.h"
#include "fencing/redislock.h"
#include "postgres/pgwatchdog.h"
#include "preflight/postgrescheck.h"

#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

const QString kHolder = QStringLiteral("lock.holder");
const QString kFence = QStringLiteral("lock.fence");

QString describeHolder(const QString &token)
{
    const LockHolder h = parseLockToken(token);
    if (!h.parsed)
        return QStringLiteral("'%1' (not a Reclaim token)").arg(token.left(80));
    return QStringLiteral("host %1, pid %2, since %3").arg(h.host).arg(h.pid).arg(h.since);
}

// The generation counter in Redis, or why it could not be read.
Expected<qint64, QString> redisGeneration(RedisChannel &redis, const QString &lockKey)
{
    auto r = redis.command({QByteArrayLiteral("GET"), RedisLock::generationKeyFor(lockKey)});
    if (!r)
        return unexpected(r.error().message);
    return r->isNil() ? 0 : r->toText().toLongLong();
}

void checkFence(const ReclaimConfig &config, RedisChannel &redis, PgConnection &pg,
                CheckReport &report)
{
    const QString key = config.run.lockKey;
    QSqlQuery q(pg.database());
    if (!q.exec(QStringLiteral("SELECT to_regclass('reclaim.fence') IS NOT NULL")) || !q.next()) {
        report.add(kFence, CheckStatus::Fail,
                   QStringLiteral("could not check: %1")
                       .arg(pg.failure(QStringLiteral("reading reclaim.fence"), q).message));
        return;
    }
    if (!q.value(0).toBool()) {
        report.add(kFence, CheckStatus::Pass,
                   QStringLiteral("no reclaim.fence yet: the first writing run creates it and "
                                  "the row of %1")
                       .arg(key));
        return;
    }
    const std::optional<qint64> fence = pgfence::highest(q, key);
    if (!fence) {
        report.add(kFence, CheckStatus::Fail,
                   QStringLiteral("could not check: %1")
                       .arg(pg.failure(QStringLiteral("reading reclaim.fence"), q).message));
        return;
    }
    const auto counter = redisGeneration(redis, key);
    if (!counter) {
        report.add(
            kFence, CheckStatus::Fail,
            QStringLiteral("could not check: the generation counter: %1").arg(counter.error()));
        return;
    }
    // Other deployments' rows: only the current layout has one per lock key.
    QStringList others;
    if (q.exec(QStringLiteral("SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
                              "to_regclass('reclaim.fence') AND attname = 'lock_key' AND NOT "
                              "attisdropped)")) &&
        q.next() && q.value(0).toBool()) {
        q.prepare(QStringLiteral("SELECT lock_key FROM reclaim.fence WHERE lock_key <> ? "
                                 "ORDER BY lock_key"));
        q.addBindValue(key);
        if (q.exec())
            while (q.next())
                others << q.value(0).toString();
    }
    if (*fence == 0 && !others.isEmpty()) {
        report.add(kFence, CheckStatus::Warn,
                   QStringLiteral("reclaim.fence has rows for other lock keys (%1) but none for "
                                  "%2: another deployment recovers on this database under a "
                                  "different lock, and the two do not exclude each other")
                       .arg(others.join(QStringLiteral(", ")), key),
                   QStringLiteral("if both recover the same tables, give them one run.lockKey"));
        return;
    }
    const QString seen = QStringLiteral("fence of %1 at generation %2, Redis counter at %3")
                             .arg(key)
                             .arg(*fence)
                             .arg(*counter);
    if (*counter < *fence)
        report.add(kFence, CheckStatus::Pass,
                   seen + QStringLiteral(" (below the fence: Redis was flushed or replaced; the "
                                         "next run raises it past the fence and says so)"));
    else
        report.add(kFence, CheckStatus::Pass, seen);
}

} // namespace

QStringList lockCheckIds()
{
    return {kHolder, kFence};
}

void checkLock(const ReclaimConfig &config, CheckedRedis *checked, PgConnection *pg,
               CheckReport &report)
{
    const QString key = config.run.lockKey;
    if (!checked) {
        report.couldNotCheck(lockCheckIds(), QStringLiteral("Redis is unreachable"));
        return;
    }
    RedisChannel &redis = checked->channel();
    const QByteArray lock = key.toUtf8();
    auto r = redis.pipeline({{QByteArrayLiteral("GET"), lock}, {QByteArrayLiteral("PTTL"), lock}});
    QString error = r ? QString() : r.error().message;
    if (r)
        for (const RedisResult &x : *r)
            if (!x && error.isEmpty())
                error = x.error().message;
    if (!error.isEmpty())
        report.add(kHolder, CheckStatus::Fail,
                   QStringLiteral("could not check: reading %1: %2").arg(key, error));
    else if (r->at(0)->isNil())
        report.add(kHolder, CheckStatus::Pass, QStringLiteral("%1 is free").arg(key));
    else if (isThisProcess(parseLockToken(r->at(0)->toText())))
        report.add(kHolder, CheckStatus::Pass,
                   QStringLiteral("%1 is held by this process's own run (%2), for %3 ms more")
                       .arg(key, describeHolder(r->at(0)->toText()))
                       .arg(r->at(1)->toInteger().value_or(-2)));
    else
        report.add(kHolder, CheckStatus::Warn,
                   QStringLiteral("%1 is held by %2, for %3 ms more: a run now is skipped "
                                  "(exit 3) until it is released or expires")
                       .arg(key, describeHolder(r->at(0)->toText()))
                       .arg(r->at(1)->toInteger().value_or(-2)),
                   QStringLiteral("if that is not another Reclaim of this deployment, give this "
                                  "deployment its own run.lockKey"));
    if (!pg) {
        report.couldNotCheck({kFence}, QStringLiteral("PostgreSQL is unreachable"));
        return;
    }
    PgWatchdog watchdog; // as for the PostgreSQL items: a frozen server cannot hang the check
    watchdog.arm(pg->socket(), preflightPostgresBudget(config.run));
    checkFence(config, redis, *pg, report);
    watchdog.disarm();
}

} // namespace reclaim
