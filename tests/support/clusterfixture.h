// What the tests on the sandbox's Redis Cluster share: the image domain's configuration for a
// given URL, prefix, queue and lock key; FLUSHALL on every master; the cluster's own word on
// which master serves a key; and one run's outcome in comparable lines.
#pragma once

#include "redis/redisconnection.h"
#include "support/sandboxenv.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QPair>
#include <QSet>
#include <QStringList>

namespace reclaim::test {

// The image domain (refapp's ImageJob rows, restored from their Image row) on `redisUrl`, with
// policy auto and a guard that lets the sandbox's small incidents through.
QJsonObject clusterDomainConfig(const SandboxEnv &env, const QString &redisUrl,
                                const QString &prefix, const QString &queue,
                                const QString &lockKey);

// Writes `config` to `path`; false when it could not.
bool writeConfig(const QString &path, const QJsonObject &config);

// FLUSHALL on every master of the cluster (a replica refuses it, and follows its master).
void flushCluster(const SandboxEnv &env);

// The port of the master that serves `key`, as the nodes themselves answer (the one that does
// not redirect an EXISTS of it), or 0 when none does.
int clusterOwnerPort(const SandboxEnv &env, const QByteArray &key);

// ROLE's first word ("master", "slave"; empty when the node did not answer), and for a
// replica the port of its master.
QPair<QString, int> clusterRoleOf(int port);

// The port of the replica of `master`, or 0.
int clusterReplicaOf(const SandboxEnv &env, int master);

// Waits (`timeoutMs`) until every node says cluster_state:ok, every replica's link to its master
// is up, `master`'s ROLE says master and it serves `key`'s slot.
bool waitClusterSettled(const SandboxEnv &env, int master, const QByteArray &key,
                        int timeoutMs = 30000);

// CLUSTER FAILOVER on `replica` (coordinated: the old master holds writes until the replica has
// them all), then waitClusterSettled for `key`.
bool clusterFailOverTo(const SandboxEnv &env, int replica, const QByteArray &key);

// A connection to the sandbox cluster's node on `port` (loopback, no password); the test
// process stops when the node does not answer, as a sandbox that lost a node cannot go on.
RedisConnection clusterNode(int port);

// Where refapp/cluster-incident.js finds a queue: "--redis URL --prefix P --queue Q".
QStringList incidentQueueArgs(const QString &redisUrl, const QString &prefix, const QString &queue);

// bullmq's own word on each job (cluster-incident.js states): job id -> {"state", "data"}.
QJsonObject bullmqStates(const SandboxEnv &env, const QStringList &where,
                         const QStringList &jobIds);

// The ids of the jobs an unmodified bullmq Worker completed (cluster-incident.js work), waiting
// for `count` of them at most 60 s.
QSet<QString> workerCompletes(const SandboxEnv &env, const QStringList &where, int count);

// "image-<row id>" of each row: the job ids cluster-incident.js gives the image domain's rows.
QStringList imageJobIds(const QStringList &rows);

// The strings of a JSON array.
QStringList jsonStrings(const QJsonArray &rows);

// "<row id> <verdict> <action kind> <action result>", sorted: what one run concluded and did.
QStringList runOutcome(const QJsonObject &report);

} // namespace reclaim::test
