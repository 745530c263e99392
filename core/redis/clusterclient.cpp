#include "redis/clusterclient.h"

#include "redis/clusterredirect.h"
#include "redis/commandkeys.h"
#include "util/clusterslot.h"

#include <QMap>
#include <QStringList>
#include <thread>

namespace reclaim {

struct ClusterClient::Pending
{
    qsizetype index = 0;            // into the caller's commands
    int slot = -1;                  // -1: a keyless command, sent to any master
    std::optional<HostPort> target; // unset: route by the slot map
    bool asking = false;            // send ASKING first (an ASK redirection)
    int sends = 0;
};

namespace {

RedisError unroutable(const QString &why)
{
    return RedisError{RedisError::Kind::Unroutable, QStringLiteral("not sent: %1").arg(why)};
}

QString quotedKey(const QByteArray &key)
{
    return QStringLiteral("'%1'").arg(QString::fromUtf8(key.left(120)));
}

} // namespace

ClusterClient::ClusterClient(QList<HostPort> seeds, Connector connect, Options options)
    : m_seeds(std::move(seeds)), m_connect(std::move(connect)), m_options(options)
{}

ClusterClient::ClusterClient(QList<HostPort> seeds, Connector connect)
    : ClusterClient(std::move(seeds), std::move(connect), Options{})
{}

ClusterClient::~ClusterClient() = default;

ClusterClient::Connector ClusterClient::connectorFor(RedisEndpoint endpoint,
                                                     std::chrono::milliseconds timeout)
{
    endpoint.cluster.reset();
    endpoint.sentinel.reset();
    endpoint.socketPath.clear();
    endpoint.database = 0;
    return [endpoint = std::move(endpoint), timeout](const HostPort &node) {
        RedisEndpoint one = endpoint;
        one.host = node.host;
        one.port = node.port;
        return RedisConnection::open(one, timeout);
    };
}

ClusterClient::Node &ClusterClient::nodeFor(const HostPort &address)
{
    for (const auto &n : m_nodes)
        if (n->address == address)
            return *n;
    m_nodes.push_back(std::make_unique<Node>(Node{address, std::nullopt, {}}));
    return *m_nodes.back();
}

Expected<RedisConnection *, RedisError> ClusterClient::connectionTo(const HostPort &address)
{
    Node &node = nodeFor(address);
    if (node.conn && node.conn->isBroken()) {
        // A broken connection is never reused; the scripts it loaded went with it.
        m_closedRoundTrips += node.conn->roundTrips();
        node.conn.reset();
        node.scripts.clear();
    }
    if (!node.conn) {
        auto opened = m_connect(address);
        if (!opened)
            return unexpected(opened.error());
        node.conn.emplace(std::move(*opened));
    }
    return &*node.conn;
}

qint64 ClusterClient::roundTrips() const
{
    qint64 n = m_closedRoundTrips;
    for (const auto &node : m_nodes)
        if (node->conn)
            n += node->conn->roundTrips();
    return n;
}

void ClusterClient::learnScript(const QByteArray &sha, const QByteArray &source)
{
    m_scriptSources.insert(sha, source);
}

Expected<bool, RedisError> ClusterClient::readSlotMapFrom(const HostPort &address)
{
    auto conn = connectionTo(address);
    if (!conn)
        return unexpected(conn.error());
    auto shards = (*conn)->command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SHARDS")});
    Expected<ClusterSlotMap, RedisError> map = unexpected(RedisError{});
    if (shards) {
        map = ClusterSlotMap::fromShards(*shards, address, false);
    } else if (shards.error().kind == RedisError::Kind::Server &&
               shards.error().message.contains(QLatin1String("cluster support disabled"))) {
        return unexpected(RedisError{RedisError::Kind::Unroutable,
                                     QStringLiteral("%1 is not in cluster mode (a single node is "
                                                    "reached with redis:// or rediss://)")
                                         .arg(address.describe())});
    } else if (shards.error().kind == RedisError::Kind::Server) {
        // A server older than 7 has no CLUSTER SHARDS.
        auto ranges = (*conn)->command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SLOTS")});
        if (!ranges)
            return unexpected(ranges.error());
        map = ClusterSlotMap::fromSlots(*ranges, address);
    } else {
        return unexpected(shards.error());
    }
    if (!map)
        return unexpected(map.error());
    if (map->isEmpty())
        return unexpected(RedisError{RedisError::Kind::Unroutable,
                                     QStringLiteral("%1 says no master serves any slot yet (a "
                                                    "cluster not created, or still forming)")
                                         .arg(address.describe())});
    m_map = std::move(*map);
    return true;
}

Expected<bool, RedisError> ClusterClient::refreshSlotMap()
{
    // The masters known first (they are the cluster as last seen), then the seeds.
    QList<HostPort> asked = m_map.masters();
    for (const HostPort &seed : m_seeds)
        if (!asked.contains(seed))
            asked << seed;
    m_sinceRefresh = QDeadlineTimer(m_options.refreshInterval);
    QStringList failures;
    for (const HostPort &node : asked) {
        auto read = readSlotMapFrom(node);
        if (read) {
            m_refreshWanted = false;
            ++m_slotMapReads;
            return true;
        }
        // Not in cluster mode is a configuration error, not a node down: say it as it is.
        if (read.error().kind == RedisError::Kind::Unroutable)
            return unexpected(read.error());
        failures << read.error().message;
    }
    return unexpected(RedisError{RedisError::Kind::Connect,
                                 QStringLiteral("no node of the cluster gave its slot map: %1")
                                     .arg(failures.join(QStringLiteral("; ")))});
}

void ClusterClient::refreshIfDue()
{
    if (m_refreshWanted && (!m_sinceRefresh || m_sinceRefresh->hasExpired()))
        (void)refreshSlotMap(); // a failure keeps the patched map, and the wish to read it again
}

Expected<int, RedisError> ClusterClient::slotOf(const RedisCommand &argv) const
{
    const auto keys = commandKeys(argv);
    if (!keys)
        return unexpected(unroutable(keys.error()));
    if (keys->scope == CommandKeys::Scope::NodeLocal)
        return unexpected(unroutable(
            QStringLiteral("%1 reads one node's keys only: in a cluster it is sent to each master "
                           "by name")
                .arg(QString::fromUtf8(argv.first().toUpper()))));
    if (keys->scope == CommandKeys::Scope::Keyless)
        return -1;
    const int slot = clusterKeySlot(keys->keys.first());
    for (const QByteArray &key : keys->keys) {
        const int other = clusterKeySlot(key);
        if (other != slot)
            return unexpected(unroutable(
                QStringLiteral("%1 names keys in different cluster slots, %2 (slot %3) and %4 "
                               "(slot %5): every key of one call must share a hash tag")
                    .arg(QString::fromUtf8(argv.first().toUpper()), quotedKey(keys->keys.first()))
                    .arg(slot)
                    .arg(quotedKey(key))
                    .arg(other)));
    }
    return slot;
}

bool ClusterClient::loadScript(Node &node, const QByteArray &sha)
{
    const auto source = m_scriptSources.constFind(sha);
    if (source == m_scriptSources.constEnd() || !node.conn)
        return false;
    auto loaded =
        node.conn->command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), *source});
    if (!loaded)
        return false;
    node.scripts.insert(sha);
    return true;
}

bool ClusterClient::sendRound(const QList<RedisCommand> &commands, QList<Pending> &pending,
                              QList<std::optional<RedisResult>> &results, Mode mode)
{
    // One pipeline per node, in the order nodes are first named.
    QList<HostPort> order;
    QHash<QString, QList<qsizetype>> byNode;
    for (qsizetype i = 0; i < pending.size(); ++i) {
        const HostPort &target = *pending.at(i).target;
        const QString name = target.describe();
        if (!byNode.contains(name))
            order << target;
        byNode[name] << i;
    }

    QList<Pending> again;
    bool wait = false;
    for (const HostPort &target : order) {
        const QList<qsizetype> &group = byNode.value(target.describe());
        auto conn = connectionTo(target);
        if (!conn) {
            // Nothing was sent. The node may have gone with a failover: the next call reads the
            // map again, this one says it could not look.
            m_refreshWanted = true;
            for (qsizetype i : group)
                results[pending.at(i).index] = unexpected(conn.error());
            continue;
        }
        QList<RedisCommand> batch;
        QList<qsizetype> replyAt; // where each pending command's own reply is in the batch
        for (qsizetype i : group) {
            if (pending.at(i).asking)
                batch << RedisCommand{QByteArrayLiteral("ASKING")};
            replyAt << batch.size();
            batch << commands.at(pending.at(i).index);
        }
        QList<RedisResult> replies;
        if (mode == Mode::Write) {
            replies = (*conn)->exchange(batch);
        } else {
            auto read = (*conn)->pipeline(batch);
            if (!read) {
                for (qsizetype i : group)
                    results[pending.at(i).index] = unexpected(read.error());
                continue;
            }
            replies = std::move(*read);
        }
        Node &node = nodeFor(target);
        QSet<QByteArray> loadedThisRound;
        for (qsizetype g = 0; g < group.size(); ++g) {
            Pending p = pending.at(group.at(g));
            RedisResult reply = replies.at(replyAt.at(g));
            ++p.sends;
            if (reply) {
                results[p.index] = std::move(reply);
                continue;
            }
            const RedisCommand &argv = commands.at(p.index);
            if (reply.error().kind == RedisError::Kind::NoScript && argv.size() > 1 &&
                p.sends < m_options.attempts) {
                // NOSCRIPT means the script did not run: give this node the script, ask again.
                const QByteArray sha = argv.at(1);
                const bool loaded = loadedThisRound.contains(sha) || loadScript(node, sha);
                if (loaded) {
                    loadedThisRound.insert(sha);
                    again << p;
                    continue;
                }
            }
            const auto redirect = parseClusterRedirect(reply.error(), target);
            if (!redirect) {
                results[p.index] = std::move(reply);
                continue;
            }
            if (p.sends >= m_options.attempts) {
                results[p.index] = unexpected(RedisError{
                    RedisError::Kind::Redirected,
                    QStringLiteral("not run: the cluster still redirected it after %1 sends (%2)")
                        .arg(p.sends)
                        .arg(reply.error().message)});
                continue;
            }
            switch (redirect->kind) {
            case ClusterRedirect::Kind::Moved:
                m_map.assign(redirect->slot, redirect->node);
                m_refreshWanted = true;
                p.target = redirect->node;
                p.asking = false;
                break;
            case ClusterRedirect::Kind::Ask:
                p.target = redirect->node; // this key only: the map is not changed
                p.asking = true;
                break;
            case ClusterRedirect::Kind::TryAgain:
                wait = true;
                break;
            case ClusterRedirect::Kind::ClusterDown:
                wait = true;
                m_refreshWanted = true;
                p.target.reset();
                p.asking = false;
                break;
            }
            again << p;
        }
    }
    pending = std::move(again);
    return wait;
}

QList<RedisResult> ClusterClient::run(const QList<RedisCommand> &commands, Mode mode)
{
    QList<std::optional<RedisResult>> results(commands.size());
    QList<Pending> pending;
    for (qsizetype i = 0; i < commands.size(); ++i) {
        auto slot = slotOf(commands.at(i));
        if (!slot)
            results[i] = unexpected(slot.error());
        else
            pending << Pending{i, *slot, std::nullopt, false, 0};
    }
    std::chrono::milliseconds backoff = m_options.backoff;
    while (!pending.isEmpty()) {
        QList<Pending> routed;
        for (Pending &p : pending) {
            if (!p.target) {
                const HostPort *owner = p.slot < 0 ? m_map.anyMaster() : m_map.owner(p.slot);
                if (!owner) {
                    results[p.index] = unexpected(unroutable(
                        QStringLiteral("no master serves slot %1 in the cluster's slot map")
                            .arg(p.slot)));
                    continue;
                }
                p.target = *owner;
            }
            routed << p;
        }
        pending = std::move(routed);
        if (pending.isEmpty())
            break;
        const bool wait = sendRound(commands, pending, results, mode);
        if (wait && !pending.isEmpty()) {
            std::this_thread::sleep_for(backoff);
            backoff *= 2;
        }
        refreshIfDue();
    }
    QList<RedisResult> out;
    out.reserve(results.size());
    for (auto &r : results)
        out << std::move(*r);
    return out;
}

Expected<QList<RedisResult>, RedisError>
ClusterClient::pipeline(const QList<RedisCommand> &commands)
{
    if (m_map.isEmpty()) {
        auto read = refreshSlotMap();
        if (!read)
            return unexpected(read.error());
    }
    return run(commands, Mode::Read);
}

QList<RedisResult> ClusterClient::exchange(const QList<RedisCommand> &commands)
{
    refreshIfDue();
    if (m_map.isEmpty()) {
        auto read = refreshSlotMap();
        if (!read) {
            // Nothing was sent: each command fails with why, none is unanswered.
            QList<RedisResult> out;
            for (qsizetype i = 0; i < commands.size(); ++i)
                out << unexpected(read.error());
            return out;
        }
    }
    return run(commands, Mode::Write);
}

Expected<qsizetype, RedisError> ClusterClient::send(const QList<RedisCommand> &commands)
{
    auto answers = pipeline(commands);
    if (!answers)
        return unexpected(answers.error());
    m_received.push_back(std::move(answers));
    return commands.size();
}

Expected<QList<RedisResult>, RedisError> ClusterClient::receive(qsizetype count)
{
    if (m_received.empty() || m_received.front()->size() != count)
        return unexpected(RedisError{RedisError::Kind::Closed,
                                     QStringLiteral("no batch of %1 sent to the cluster is "
                                                    "waiting to be read")
                                         .arg(count)});
    auto answers = std::move(m_received.front());
    m_received.pop_front();
    return answers;
}

void ClusterClient::refreshBeforeNextCall()
{
    m_refreshWanted = true;
    m_sinceRefresh.reset();
}

RedisResult ClusterClient::command(const RedisCommand &argv)
{
    auto results = pipeline({argv});
    if (!results)
        return unexpected(results.error());
    return results->first();
}

RedisResult ClusterClient::commandOn(const HostPort &node, const RedisCommand &argv)
{
    auto conn = connectionTo(node);
    if (!conn)
        return unexpected(conn.error());
    return (*conn)->command(argv);
}

} // namespace reclaim
