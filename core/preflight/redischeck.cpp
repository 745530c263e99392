#include "preflight/redischeck.h"

#include "preflight/clustercheck.h"
#include "preflight/commandneeds.h"
#include "preflight/loopback.h"
#include "redis/masterlocator.h"

#include <QRegularExpression>

namespace reclaim {

namespace {

const QString kReachable = QStringLiteral("redis.reachable");
const QString kVersion = QStringLiteral("redis.version");
const QString kTls = QStringLiteral("redis.tls");
const QString kAclUser = QStringLiteral("redis.acl-user");
const QString kEviction = QStringLiteral("redis.maxmemory-policy");
const QString kCommands = QStringLiteral("redis.commands");
const QString kCluster = QStringLiteral("redis.cluster");
const QString kHashTags = QStringLiteral("redis.hash-tags");

bool isUnknownCommand(const RedisError &e)
{
    return e.message.contains(QLatin1String("unknown command"), Qt::CaseInsensitive) ||
           e.message.contains(QLatin1String("unknown subcommand"), Qt::CaseInsensitive);
}

// By kind: the connection rewrites the server's NOPERM into "user 'x' may not run ..." (kind
// NoPermission), so the text no longer starts with it.
bool isNoPerm(const RedisError &e)
{
    return e.kind == RedisError::Kind::NoPermission ||
           e.message.startsWith(QLatin1String("NOPERM"));
}

// Whom the connection authenticated as, for messages and for ACL DRYRUN.
struct AclUser
{
    bool aclAvailable = false; // ACL WHOAMI answered
    QString name;              // as WHOAMI answered, or as configured
};

AclUser checkAclUser(RedisConnection &conn, const RedisEndpoint &endpoint, CheckReport &report)
{
    const QString configured = endpoint.user.isEmpty() ? QStringLiteral("default") : endpoint.user;
    auto r = conn.command({QByteArrayLiteral("ACL"), QByteArrayLiteral("WHOAMI")});
    if (r) {
        const QString user = r->toText();
        report.add(kAclUser, CheckStatus::Pass,
                   QStringLiteral("connected as ACL user '%1'").arg(user));
        return {true, user};
    }
    if (isUnknownCommand(r.error())) {
        report.add(kAclUser, CheckStatus::Pass,
                   QStringLiteral("this server has no ACLs (before Redis 6): every connection "
                                  "may run every command"));
        return {false, configured};
    }
    if (isNoPerm(r.error())) {
        report.add(kAclUser, CheckStatus::Warn,
                   QStringLiteral("user '%1' may not run ACL WHOAMI, so whom the server took "
                                  "the connection for cannot be confirmed")
                       .arg(configured),
                   QStringLiteral("allow 'acl|whoami' for this user (ACL SETUSER %1 +acl|whoami)")
                       .arg(configured));
        return {true, configured};
    }
    report.add(kAclUser, CheckStatus::Fail,
               QStringLiteral("could not check: ACL WHOAMI: %1").arg(r.error().message));
    return {true, configured};
}

void checkEviction(RedisConnection &conn, const QHash<QString, QString> &info, CheckReport &report)
{
    QString policy = info.value(QStringLiteral("maxmemory_policy"));
    if (policy.isEmpty()) {
        auto r = conn.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"),
                               QByteArrayLiteral("maxmemory-policy")});
        if (r && r->isArray() && r->elements.size() == 2)
            policy = r->elements.at(1).toText();
        if (policy.isEmpty()) {
            report.add(kEviction, CheckStatus::Fail,
                       QStringLiteral("could not check: INFO has no maxmemory_policy and CONFIG "
                                      "GET maxmemory-policy %1")
                           .arg(r ? QStringLiteral("answered nothing") : r.error().message),
                       QStringLiteral("confirm with the Redis operator that maxmemory-policy is "
                                      "noeviction"));
            return;
        }
    }
    if (policy == QLatin1String("noeviction")) {
        report.add(kEviction, CheckStatus::Pass,
                   QStringLiteral("maxmemory-policy is noeviction: Redis refuses writes when "
                                  "full rather than dropping keys"));
        return;
    }
    report.add(kEviction, CheckStatus::Fail,
               QStringLiteral("maxmemory-policy is %1: under memory pressure Redis evicts keys, "
                              "and an evicted job looks exactly like an orphan (its row would be "
                              "requeued or failed while the application still counts on it)")
                   .arg(policy),
               QStringLiteral("CONFIG SET maxmemory-policy noeviction (and set it in redis.conf "
                              "or the provider's parameter group)"));
}

QStringList commandNames(const QList<CommandNeed> &needs)
{
    QStringList names;
    for (const CommandNeed &n : needs) {
        QString name = QString::fromUtf8(n.argv.first());
        if (name == QLatin1String("SCRIPT") || name == QLatin1String("XINFO"))
            name += QLatin1Char('|') + QString::fromUtf8(n.argv.at(1)).toLower();
        if (!names.contains(name))
            names << name;
    }
    return names;
}

// Redis 7: ACL DRYRUN asks the server whether `user` may run each command on its keys, without
// running it. Nullopt when DRYRUN itself cannot be used here (the fallback then applies).
std::optional<bool> dryRun(RedisConnection &conn, const QString &user,
                           const QList<CommandNeed> &needs, CheckReport &report)
{
    QList<RedisCommand> batch;
    for (const CommandNeed &n : needs)
        batch << (RedisCommand{QByteArrayLiteral("ACL"), QByteArrayLiteral("DRYRUN"), user.toUtf8()}
                  << n.argv);
    auto replies = conn.pipeline(batch);
    if (!replies) {
        report.add(kCommands, CheckStatus::Fail,
                   QStringLiteral("could not check: ACL DRYRUN: %1").arg(replies.error().message));
        return true;
    }
    QStringList denied;
    QList<CommandNeed> deniedNeeds;
    for (qsizetype i = 0; i < replies->size(); ++i) {
        const RedisResult &r = replies->at(i);
        if (!r) {
            if (i == 0 && (isNoPerm(r.error()) || isUnknownCommand(r.error())))
                return std::nullopt;
            denied << QStringLiteral("%1: %2").arg(needs.at(i).what, r.error().message);
            deniedNeeds << needs.at(i);
            continue;
        }
        const QString text = r->toText();
        if (text != QLatin1String("OK")) {
            denied << QStringLiteral("%1: %2").arg(needs.at(i).what, text);
            deniedNeeds << needs.at(i);
        }
    }
    if (denied.isEmpty()) {
        report.add(kCommands, CheckStatus::Pass,
                   QStringLiteral("ACL DRYRUN: user '%1' may run all %2 commands a run sends (on "
                                  "the lock and every configured queue's keys)")
                       .arg(user)
                       .arg(needs.size()));
        return true;
    }
    report.add(kCommands, CheckStatus::Fail,
               QStringLiteral("ACL DRYRUN: user '%1' may not run %2 (%3 of the %4 commands a "
                              "run sends); first: %5")
                   .arg(user, commandNames(deniedNeeds).join(QStringLiteral(", ")))
                   .arg(denied.size())
                   .arg(needs.size())
                   .arg(denied.first()),
               QStringLiteral("ACL SETUSER %1 +%2, with the queues' and the lock's keys in its "
                              "key patterns (without them a run's lookups fail: UNKNOWN)")
                   .arg(user, commandNames(deniedNeeds).join(QStringLiteral(" +")).toLower()));
    return true;
}

// Before Redis 7 (or where DRYRUN is not allowed): what can be tried without writing is tried
// (EVALSHA of an unknown script answers NOSCRIPT when allowed, NOPERM when not; GET and PTTL of
// the lock), and the commands inside the scripts are named for the operator to confirm.
void fallback(RedisConnection &conn, const ReclaimConfig &config, const AclUser &user,
              const QList<CommandNeed> &needs, CheckReport &report)
{
    const QByteArray lock = config.run.lockKey.toUtf8();
    auto replies = conn.pipeline(
        {{QByteArrayLiteral("EVALSHA"), QByteArray(40, '0'), QByteArrayLiteral("1"), lock},
         {QByteArrayLiteral("GET"), lock},
         {QByteArrayLiteral("PTTL"), lock}});
    if (!replies) {
        report.add(kCommands, CheckStatus::Fail,
                   QStringLiteral("could not check: %1").arg(replies.error().message));
        return;
    }
    const QStringList tried{QStringLiteral("EVALSHA"), QStringLiteral("GET"),
                            QStringLiteral("PTTL")};
    for (qsizetype i = 0; i < replies->size(); ++i) {
        const RedisResult &r = replies->at(i);
        if (!r && isNoPerm(r.error())) {
            report.add(kCommands, CheckStatus::Fail,
                       QStringLiteral("user '%1' may not run %2 on %3: %4")
                           .arg(user.name, tried.at(i), config.run.lockKey, r.error().message),
                       QStringLiteral("ACL SETUSER %1 +%2").arg(user.name, tried.at(i).toLower()));
            return;
        }
        // Redis checks a command's ACL before the slot of its keys, so on a cluster master that
        // does not serve the lock's slot, MOVED means "allowed".
        if (!r && r.error().kind != RedisError::Kind::NoScript &&
            !r.error().message.startsWith(QLatin1String("MOVED "))) {
            report.add(
                kCommands, CheckStatus::Fail,
                QStringLiteral("could not check: %1: %2").arg(tried.at(i), r.error().message));
            return;
        }
    }
    if (!user.aclAvailable) {
        report.add(kCommands, CheckStatus::Pass,
                   QStringLiteral("no ACLs on this server: EVALSHA, GET and PTTL answered, and "
                                  "every command is allowed"));
        return;
    }
    report.add(kCommands, CheckStatus::Warn,
               QStringLiteral("EVALSHA, GET and PTTL are allowed for user '%1'; the commands "
                              "inside Reclaim's scripts cannot be checked without ACL DRYRUN "
                              "(Redis 7, and permission to run it): %2")
                   .arg(user.name, commandNames(needs).join(QStringLiteral(", "))),
               QStringLiteral("confirm that user '%1' may run those commands on every queue's "
                              "keys and the lock key, or allow 'acl|dryrun' so the check can")
                   .arg(user.name));
}

// A single-node URL: the node must not be a cluster's (its keys would live on several masters).
void checkClusterAndTags(const ReclaimConfig &config, const QHash<QString, QString> &info,
                         CheckReport &report)
{
    if (info.value(QStringLiteral("cluster_enabled")) != QLatin1String("1")) {
        report.add(kCluster, CheckStatus::Pass, QStringLiteral("cluster mode is off"));
        report.add(kHashTags, CheckStatus::Pass, QStringLiteral("not needed: cluster mode is off"));
        return;
    }
    report.add(kCluster, CheckStatus::Fail,
               QStringLiteral("cluster mode is on, and the URL names one node: its keys live on "
                              "several masters, which a single-node URL does not follow"),
               QStringLiteral("use redis+cluster://host:port[,host:port...] (README, Redis "
                              "Cluster)"));
    addHashTagItem(config, report);
}

} // namespace

void addHashTagItem(const ReclaimConfig &config, CheckReport &report)
{
    QStringList untagged;
    for (const DomainConfig &d : config.domains)
        if (!hasHashTag(d.keyPrefix) && !untagged.contains(d.keyPrefix))
            untagged << d.keyPrefix;
    if (untagged.isEmpty())
        report.add(kHashTags, CheckStatus::Pass,
                   QStringLiteral("every key prefix carries a {hash tag}"));
    else
        report.add(kHashTags, CheckStatus::Fail,
                   QStringLiteral("key prefixes without a {hash tag}: %1 — a queue's keys land "
                                  "in different slots and its scripts are refused (CROSSSLOT)")
                       .arg(untagged.join(QStringLiteral(", "))),
                   QStringLiteral("use a prefix such as {bull} in the application and in "
                                  "domains[].keyPrefix"));
}

QStringList redisCheckIds()
{
    return {kReachable, kVersion, kTls, kAclUser, kEviction, kCommands, kCluster, kHashTags};
}

QHash<QString, QString> parseInfo(const QByteArray &info)
{
    QHash<QString, QString> out;
    for (const QByteArray &line : info.split('\n')) {
        const QByteArray l = line.trimmed();
        const qsizetype colon = l.indexOf(':');
        if (l.isEmpty() || l.startsWith('#') || colon <= 0)
            continue;
        out.insert(QString::fromUtf8(l.left(colon)), QString::fromUtf8(l.mid(colon + 1)));
    }
    return out;
}

bool hasHashTag(const QString &prefix)
{
    const qsizetype open = prefix.indexOf(QLatin1Char('{'));
    if (open < 0)
        return false;
    const qsizetype close = prefix.indexOf(QLatin1Char('}'), open + 1);
    return close > open + 1;
}

std::optional<QPair<int, int>> parseVersion(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^(\\d+)\\.(\\d+)"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    return qMakePair(m.captured(1).toInt(), m.captured(2).toInt());
}

Expected<QHash<QString, QString>, QString> checkRedisNode(RedisConnection &conn,
                                                          const RedisEndpoint &redis,
                                                          const ReclaimConfig &config,
                                                          CheckReport &report)
{
    auto infoReply = conn.command({QByteArrayLiteral("INFO")});
    QHash<QString, QString> info;
    if (infoReply)
        info = parseInfo(infoReply->toBytes().value_or(QByteArray()));
    const QString versionText = info.value(QStringLiteral("redis_version"));
    const auto version = parseVersion(versionText);
    if (!infoReply)
        report.add(kVersion, CheckStatus::Fail,
                   QStringLiteral("could not check: INFO: %1").arg(infoReply.error().message),
                   QStringLiteral("allow INFO for this user (ACL SETUSER <user> +info)"));
    else if (!version)
        report.add(kVersion, CheckStatus::Fail,
                   QStringLiteral("could not check: INFO names no redis_version"));
    else if (*version < qMakePair(6, 2))
        report.add(kVersion, CheckStatus::Fail,
                   QStringLiteral("Redis %1: BullMQ 6 needs Redis 6.2 or later").arg(versionText),
                   QStringLiteral("upgrade Redis to 6.2 or later (7.x recommended)"));
    else
        report.add(kVersion, CheckStatus::Pass, QStringLiteral("Redis %1").arg(versionText));

    // What the connection settings say (the handshake itself already passed: we are connected).
    if (redis.isSocket())
        report.add(
            kTls, CheckStatus::Pass,
            QStringLiteral("Unix socket %1: never leaves this machine").arg(redis.socketPath));
    else if (redis.tls.enabled && redis.tls.insecure)
        report.add(kTls, CheckStatus::Warn,
                   QStringLiteral("TLS to %1 with certificate and host verification off "
                                  "(connections.redisTls.insecure): anyone on the path can pose "
                                  "as the server")
                       .arg(redis.host),
                   QStringLiteral("set connections.redisTls.ca to the CA that signed the server's "
                                  "certificate and drop insecure"));
    else if (redis.tls.enabled)
        report.add(kTls, CheckStatus::Pass,
                   QStringLiteral("TLS to %1, certificate verified%2")
                       .arg(redis.host, redis.tls.certFile.isEmpty()
                                            ? QString()
                                            : QStringLiteral(", with a client certificate")));
    else if (isLoopbackHost(redis.host))
        report.add(
            kTls, CheckStatus::Pass,
            QStringLiteral("plain TCP (redis://) to %1, which is this machine").arg(redis.host));
    else
        report.add(kTls, CheckStatus::Warn,
                   QStringLiteral("plain TCP (redis://) to %1: the password and job data cross "
                                  "the network unencrypted")
                       .arg(redis.host),
                   QStringLiteral("use rediss:// with connections.redisTls (see README, "
                                  "Connection forms)"));

    const AclUser user = checkAclUser(conn, redis, report);
    if (infoReply)
        checkEviction(conn, info, report);
    else
        report.couldNotCheck({kEviction},
                             QStringLiteral("INFO failed: %1").arg(infoReply.error().message));

    const QList<CommandNeed> needs = commandNeeds(config);
    bool done = false;
    if (user.aclAvailable && version && *version >= qMakePair(7, 0))
        done = dryRun(conn, user.name, needs, report).has_value();
    if (!done)
        fallback(conn, config, user, needs, report);
    if (!infoReply)
        return unexpected(infoReply.error().message);
    return info;
}

void reportRedisUnreachable(const QString &where, const QString &why, CheckReport &report)
{
    report.add(kReachable, CheckStatus::Fail, QStringLiteral("Redis at %1: %2").arg(where, why),
               QStringLiteral("check connections.redisUrl (or RECLAIM_REDIS_URL), its user "
                              "and password, and that the server runs and accepts this host"));
    report.couldNotCheck(redisCheckIds().mid(1), QStringLiteral("Redis is unreachable"));
}

namespace {

std::optional<CheckedRedis> checkSingleNode(const ReclaimConfig &config, CheckReport &report)
{
    auto opened = openMaster(config.redis, config.run.redisTimeout);
    if (!opened) {
        reportRedisUnreachable(config.redis.redacted(), opened.error().message, report);
        return std::nullopt;
    }
    RedisConnection conn = std::move(*opened);
    report.add(kReachable, CheckStatus::Pass,
               QStringLiteral("Redis at %1 answered").arg(config.redis.redacted()));
    const auto info = checkRedisNode(conn, config.redis, config, report);
    if (info)
        checkClusterAndTags(config, *info, report);
    else
        report.couldNotCheck({kCluster, kHashTags},
                             QStringLiteral("INFO failed: %1").arg(info.error()));
    return CheckedRedis(std::move(conn));
}

} // namespace

std::optional<CheckedRedis> checkRedis(const ReclaimConfig &config, CheckReport &report)
{
    if (config.redis.cluster)
        return checkCluster(config, report);
    return checkSingleNode(config, report);
}

} // namespace reclaim
