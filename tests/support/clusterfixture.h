// What the tests on the sandbox's Redis Cluster share: the image domain's configuration for a
// given URL, prefix, queue and lock key; FLUSHALL on every master; the cluster's own word on
// which master serves a key; and one run's outcome in comparable lines.
#pragma once

#include "support/sandboxenv.h"

#include <QJsonArray>
#include <QJsonObject>
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

// The strings of a JSON array.
QStringList jsonStrings(const QJsonArray &rows);

// "<row id> <verdict> <action kind> <action result>", sorted: what one run concluded and did.
QStringList runOutcome(const QJsonObject &report);

} // namespace reclaim::test
