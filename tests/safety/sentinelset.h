// A Sentinel-monitored Redis owned by one test: one master, one replica (replicaof) and three
// sentinels (`redis-server --sentinel`) on free loopback ports in a temporary directory, with
// failure detection fast enough for a test (down-after 1 s, failover-timeout 3 s).
#pragma once

#include "redis/redisconnection.h"

#include <QProcess>
#include <QTemporaryDir>
#include <memory>
#include <vector>

namespace reclaim::test {

class SentinelSet final
{
public:
    static constexpr const char *kMasterName = "mymaster";

    // Sentinels as companies run them (#31 item 6).
    struct Options
    {
        // The data nodes require it (requirepass, masterauth) and the sentinels use it
        // (auth-pass).
        QString password;
        // The sentinels' own password: Sentinel's requirepass, or with sentinelUser an ACL user
        // on the sentinels (and the default user off); the sentinels use it with each other.
        QString sentinelPassword;
        QString sentinelUser;
        // Every node and sentinel on TLS only (tls-port, port 0, tls-replication), with the
        // server certificate and CA in these files; clients are not asked for certificates.
        QString tlsCert;
        QString tlsKey;
        QString tlsCa;
    };

    // With a password, the data nodes require it (requirepass, masterauth) and the sentinels
    // use it (auth-pass); the sentinels themselves require none.
    explicit SentinelSet(QString password = {});
    explicit SentinelSet(Options options);
    ~SentinelSet();
    Q_DISABLE_COPY_MOVE(SentinelSet)

    // Starts the five servers and waits until every sentinel knows the replica and the other
    // sentinels (what a failover needs); false with `error()` saying what did not come up.
    bool start();
    QString error() const { return m_error; }

    int dataPort(int i) const { return m_dataPorts[i]; } // 0: the first master, 1: its replica
    int sentinelPort(int i) const { return m_sentinelPorts[i]; }
    // A loopback port nothing listens on: a sentinel that is down.
    int deadPort() const { return m_deadPort; }

    // "redis+sentinel://127.0.0.1:p1,...:p3/mymaster" (rediss+ on TLS), optionally led by the
    // dead sentinel.
    QString url(bool leadWithADeadSentinel) const;
    static QString dataUrl(int port) { return QStringLiteral("redis://127.0.0.1:%1/0").arg(port); }

    // A plain connection to a node or sentinel on loopback (AUTH with `password` if given).
    static Expected<RedisConnection, RedisError> connect(int port, const QString &password = {});
    // The master's port as sentinel `i` names it now, 0 when it names none.
    int masterPortSeenBy(int i) const;
    // ROLE's first word ("master", "slave", "sentinel"), empty when the node does not answer.
    static QString role(int port, const QString &password = {});

private:
    bool tls() const { return !m_options.tlsCert.isEmpty(); }
    QStringList tlsArgs(int port) const;
    // A connection to one of this set's nodes or sentinels, as its options require.
    Expected<RedisConnection, RedisError> open(int port, bool sentinel) const;

    QTemporaryDir m_dir;
    Options m_options;
    int m_dataPorts[2] = {0, 0};
    int m_sentinelPorts[3] = {0, 0, 0};
    int m_deadPort = 0;
    std::vector<std::unique_ptr<QProcess>> m_processes;
    QString m_error;
};

} // namespace reclaim::test
