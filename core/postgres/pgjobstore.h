// The job store port on PostgreSQL through QtSql's QPSQL driver: candidates, restore payloads,
// the retry budget, the fence and the conditional writes, each in its own file here.
// Thread-confined: create, use and destroy it on one thread (the connection belongs to that
// thread).
#pragma once

#include "config/reclaimconfig.h"
#include "ports/jobstore.h"
#include "postgres/pgconnection.h"

#include <QString>
#include <memory>

namespace reclaim {

class PgJobStore final : public JobStore
{
public:
    ~PgJobStore() override;
    Q_DISABLE_COPY_MOVE(PgJobStore)

    // Connects within the configured timeout. With `readOnly`, Reclaim's own schema is neither
    // created nor written (dry runs, the read-only console).
    static Expected<std::unique_ptr<PgJobStore>, StoreError> open(const ReclaimConfig &config,
                                                                  bool readOnly);

    Expected<QList<Candidate>, StoreError> readCandidates(const DomainConfig &domain) override;
    Expected<std::optional<QByteArray>, StoreError> restorePayload(const DomainConfig &domain,
                                                                   const RestoreRule &rule,
                                                                   const QString &rowId) override;
    Expected<int, StoreError> recentRequeues(const DomainConfig &domain,
                                             const QString &rowId) override;
    Expected<bool, StoreError> startGeneration(qint64 generation) override;
    Expected<WriteOutcome, StoreError> applyAction(const DomainConfig &domain, const Action &action,
                                                   const Actor &actor) override;
    void auditOnly(const Action &action, const Actor &actor) override;
    Expected<std::optional<Candidate>, StoreError> readRow(const DomainConfig &domain,
                                                           const QString &rowId) override;
    Expected<QList<Rejection>, StoreError> activeRejections(const DomainConfig &domain) override;
    Expected<Rejection, StoreError> recordRejection(const Action &action,
                                                    const Actor &actor) override;
    Expected<int, StoreError> undoRejection(const Action &action, const Actor &actor) override;

    QString connectionName() const;

private:
    PgJobStore(std::unique_ptr<PgConnection> conn, bool readOnly);
    // Reclaim's own schema, created idempotently in one transaction.
    Expected<bool, StoreError> migrate();

    std::unique_ptr<PgConnection> m_conn;
    bool m_readOnly;
};

} // namespace reclaim
