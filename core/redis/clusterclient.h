// A client of a Redis Cluster: every command and script call goes to the master serving its
// keys' slot, and the cluster's redirections (MOVED, ASK, TRYAGAIN, CLUSTERDOWN) and a node's
// missing script (NOSCRIPT) are followed within one bounded budget per command.
//
// What it never does: send a call whose keys span slots (refused before sending, naming the
// keys: every key a script touches must be in KEYS and share one hash tag); send again a call
// that may have run (a write whose connection was lost before its reply is Unanswered); send
// again CROSSSLOT or a script's "non local key", which no retry can change.
#pragma once

#include "config/connectionurl.h"
#include "config/hostport.h"
#include "redis/clusterslotmap.h"
#include "redis/redischannel.h"
#include "redis/redisconnection.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QSet>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace reclaim {

class ClusterClient final : public RedisChannel
{
public:
    using Connector = std::function<Expected<RedisConnection, RedisError>(const HostPort &node)>;

    struct Options
    {
        // Sends per command: the first, and the ones after a redirection or a NOSCRIPT.
        int attempts = 5;
        // The first wait after TRYAGAIN or CLUSTERDOWN; doubled at each further one.
        std::chrono::milliseconds backoff{50};
        // MOVED patches the one slot at once; the whole map is read again at most this often.
        std::chrono::milliseconds refreshInterval{1000};
    };

    ClusterClient(QList<HostPort> seeds, Connector connect, Options options);
    ClusterClient(QList<HostPort> seeds, Connector connect);
    Q_DISABLE_COPY_MOVE(ClusterClient)
    ~ClusterClient() override;

    // Opens each node with `endpoint`'s credentials and TLS, database 0, within `timeout`.
    static Connector connectorFor(RedisEndpoint endpoint, std::chrono::milliseconds timeout);

    // Reads the slot map from the masters known, then the seeds, the first that answers:
    // CLUSTER SHARDS, or CLUSTER SLOTS on a server older than 7. Called by the first command.
    Expected<bool, RedisError> refreshSlotMap();

    // One command, routed by its keys.
    RedisResult command(const RedisCommand &argv) override;

    // Reads: each command routed by its keys, one pipeline per node per round. The outer error
    // means no slot map could be read and nothing was sent; a node that could not be reached
    // fails the commands routed to it, never their neighbours.
    Expected<QList<RedisResult>, RedisError> pipeline(const QList<RedisCommand> &commands) override;

    // pipeline() in two halves. A batch spans nodes, so send() runs it at once, redirections
    // included, and keeps its answers for receive(): no overlap across nodes, the same answers.
    Expected<qsizetype, RedisError> send(const QList<RedisCommand> &commands) override;
    Expected<QList<RedisResult>, RedisError> receive(qsizetype count) override;

    // Writes: one answer per command, always. A command sent whose reply never came is
    // Unanswered (it may have run) and is not sent again; only a command the cluster refused
    // before running it (a redirection, NOSCRIPT) is sent again.
    QList<RedisResult> exchange(const QList<RedisCommand> &commands) override;

    // A command that reads one node's own keys (SCAN, DBSIZE), sent to that node as it is.
    RedisResult commandOn(const HostPort &node, const RedisCommand &argv);

    // The source of a script sent by EVALSHA, so a node that answers NOSCRIPT (one reached by
    // a redirection, or a promoted replica) is given it with SCRIPT LOAD and asked again.
    void learnScript(const QByteArray &sha, const QByteArray &source) override;

    // The whole client never breaks: a node that fails fails its own commands, and the next
    // call opens it again.
    bool isBroken() const override { return false; }

    // Asks for the slot map to be read again before the next command, past the interval: a run
    // starts from the cluster as it is, after a failover or a reshard since the last run.
    void refreshBeforeNextCall();

    const ClusterSlotMap &slotMap() const { return m_map; }
    qint64 roundTrips() const override;
    int slotMapReads() const { return m_slotMapReads; }

private:
    struct Node
    {
        HostPort address;
        std::optional<RedisConnection> conn;
        QSet<QByteArray> scripts; // loaded on this connection by SCRIPT LOAD
    };
    struct Pending;
    enum class Mode
    {
        Read,
        Write
    };

    QList<RedisResult> run(const QList<RedisCommand> &commands, Mode mode);
    // Sends every pending command once (one pipeline per node) and keeps pending those the
    // cluster asked to send again; true when one of them asked for a wait first.
    bool sendRound(const QList<RedisCommand> &commands, QList<Pending> &pending,
                   QList<std::optional<RedisResult>> &results, Mode mode);
    Expected<int, RedisError> slotOf(const RedisCommand &argv) const;
    Expected<RedisConnection *, RedisError> connectionTo(const HostPort &address);
    Node &nodeFor(const HostPort &address);
    Expected<bool, RedisError> readSlotMapFrom(const HostPort &address);
    void refreshIfDue();
    bool loadScript(Node &node, const QByteArray &sha);

    QList<HostPort> m_seeds;
    Connector m_connect;
    Options m_options;
    ClusterSlotMap m_map;
    std::vector<std::unique_ptr<Node>> m_nodes; // stable addresses: a round holds references
    QHash<QByteArray, QByteArray> m_scriptSources;
    std::optional<QDeadlineTimer> m_sinceRefresh; // unset until the first read of the map
    bool m_refreshWanted = false;
    int m_slotMapReads = 0;
    std::deque<Expected<QList<RedisResult>, RedisError>> m_received; // sent, not yet received
    qint64 m_closedRoundTrips = 0;
};

} // namespace reclaim
