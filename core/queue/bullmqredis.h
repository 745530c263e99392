// The queue ports over one hiredis connection to the Redis that holds the BullMQ queues.
#pragma once

#include "config/reclaimconfig.h"
#include "queue/queueports.h"
#include "redis/redisconnection.h"

#include <optional>

namespace reclaim {

class BullmqRedis final : public QueueInspector, public QueueWriter, public RecoveryLock
{
public:
    BullmqRedis(RedisEndpoint endpoint, const RunSettings &settings);
    ~BullmqRedis() override;
    Q_DISABLE_COPY_MOVE(BullmqRedis)

    QList<Expected<Sighting, RedisError>> probe(const QList<JobRef> &jobs) override;
    Expected<QSet<QString>, RedisError> listMembers(const QString &keyPrefix, const QString &queue,
                                                    const QString &list) override;
    Expected<ScanPage, RedisError> scanPage(const QString &keyPrefix, const QString &queue,
                                            const QString &state, qint64 offset,
                                            int count) override;
    qint64 roundTrips() const override;

    Expected<EnqueueOutcome, RedisError> enqueue(const JobRef &job, const QString &name,
                                                 const QByteArray &data,
                                                 qint64 timestampMs) override;

    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64 ttlMs) override;
    Expected<bool, RedisError> renew(const QString &token, qint64 ttlMs) override;
    Expected<bool, RedisError> release(const QString &token) override;
    Expected<LockAttempt, RedisError> peek() override;

private:
    // The live connection, reconnecting if the last one failed: one failure is one UNKNOWN,
    // not a poisoned run.
    Expected<RedisConnection *, RedisError> connection();

    RedisEndpoint m_endpoint;
    RunSettings m_settings;
    std::optional<RedisConnection> m_conn;
    qint64 m_closedRoundTrips = 0;
};

} // namespace reclaim
