// The sandbox servers a test runs against, read from the env file the "sandbox" fixture wrote.
#pragma once

#include "config/reclaimconfig.h"
#include "redis/redisconnection.h"

#include <QProcessEnvironment>
#include <QString>

namespace reclaim::test {

// True when a missing sandbox is a failure, not a skip: under CI (CI=true) or with
// RECLAIM_REQUIRE_SANDBOX=1, so a suite that silently skipped every check cannot look green.
bool sandboxRequired();

struct SandboxEnv
{
    QString pgUrl;
    QString redisUrl;
    QString dir;
    int redisPort = 0;
    QString redisPidFile;
    QString pgData;
    int pgPort = 0;
    // The sandbox's Redis Cluster (tools/sandbox --cluster): its redis+cluster:// URL and the
    // six nodes' ports, the three created as masters first. Empty without a cluster.
    QString clusterUrl;
    QList<int> clusterPorts;

    // Skips (QSKIP) the calling test when no sandbox is available.
    static SandboxEnv load();

    QProcessEnvironment processEnvironment() const; // with RECLAIM_PG_URL / RECLAIM_REDIS_URL
    qint64 redisPid() const;
};

// Wipes the sandbox: FLUSHALL, and the database's public and reclaim schemas recreated empty.
void resetSandbox(const SandboxEnv &env);

// Runs SQL on the sandbox database through a short-lived QPSQL connection; fails the test on error.
QList<QVariantList> sql(const SandboxEnv &env, const QString &statement,
                        const QVariantList &binds = {});

// A raw Redis connection to the sandbox.
RedisConnection redis(const SandboxEnv &env);

// Every queue of `config`'s domains as the app's BullMQ Queues leave them when they open: the
// meta hash stamped with the version (kept where one is there). A queue with no trace at all in
// Redis holds its domain (core/recovery/blastradiusguard.h); a test whose app never opened one of
// its configured queues calls this, as any real deployment would have.
void openAppQueues(const SandboxEnv &env, const ReclaimConfig &config);

// The sample configuration with the sandbox's URLs (optionally patched by `edit`).
ReclaimConfig sampleConfig(const SandboxEnv &env);

} // namespace reclaim::test

// Skips the test function without a sandbox, or fails it where one is required
// (sandboxRequired()). CTest reports a skipped initTestCase as "Not Run" (tests/CMakeLists.txt).
#define RECLAIM_SKIP_WITHOUT_SANDBOX(message)                                                      \
    do {                                                                                           \
        if (::reclaim::test::sandboxRequired())                                                    \
            QFAIL("no sandbox, and CI=true or RECLAIM_REQUIRE_SANDBOX=1 requires one: " message);  \
        QSKIP(message);                                                                            \
    } while (false)
