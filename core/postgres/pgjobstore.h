// The job store port on PostgreSQL through QtSql's QPSQL driver: candidates, restore payloads,
// the retry budget, the fence and the conditional writes, each in its own file here.
// Thread-confined: create, use and destroy it on one thread (the connection belongs to that
// thread).
#pragma once

#include "config/reclaimconfig.h"
#include "ports/heldactionstore.h"
#include "ports/jobstore.h"
#include "postgres/batchwrite.h"
#include "postgres/pgconnection.h"
#include "postgres/pgwatchdog.h"

#include <QString>
#include <memory>

namespace reclaim {

class PgJobStore final : public JobStore, public HeldActionStore
{
public:
    ~PgJobStore() override;
    Q_DISABLE_COPY_MOVE(PgJobStore)

    // Connects within the configured timeout and writes nothing: Reclaim's own schema is created
    // by the first startGeneration(), which runs only under the lock. With `readOnly`, it is
    // neither created nor written (dry runs, the read-only console).
    static Expected<std::unique_ptr<PgJobStore>, StoreError> open(const ReclaimConfig &config,
                                                                  bool readOnly);

    Expected<QList<Candidate>, StoreError> readCandidates(const DomainConfig &domain,
                                                          RowJson rowJson) override;
    Expected<std::optional<QByteArray>, StoreError> restorePayload(const DomainConfig &domain,
                                                                   const RestoreRule &rule,
                                                                   const QString &rowId) override;
    Expected<int, StoreError> recentRequeues(const DomainConfig &domain,
                                             const QString &rowId) override;
    // In sets: postgres/planreads.cpp.
    Expected<QHash<QString, int>, StoreError> recentRequeuesOf(const DomainConfig &domain,
                                                               const QStringList &rowIds) override;
    QHash<QString, RestoredInput> restorePayloadsOf(const DomainConfig &domain,
                                                    const RestoreRule &rule,
                                                    const QStringList &rowIds) override;
    Expected<qint64, StoreError> fenceGeneration() override;
    Expected<bool, StoreError> startGeneration(qint64 generation) override;
    Expected<qint64, StoreError> recordIntent(const Action &action, const Actor &actor) override;
    Expected<WriteOutcome, StoreError> applyAction(const DomainConfig &domain, const Action &action,
                                                   const Actor &actor) override;
    void auditOnly(const Action &action, const Actor &actor) override;
    // In sets: postgres/batchwrite.cpp.
    Expected<QList<qint64>, StoreError> recordIntents(const QList<const Action *> &actions,
                                                      const Actor &actor) override;
    QList<Expected<WriteOutcome, StoreError>> applyActions(const DomainConfig &domain,
                                                           const QList<const Action *> &actions,
                                                           const Actor &actor) override;
    void auditOnlyMany(const QList<const Action *> &actions, const Actor &actor) override;
    QStringList finishAudits() override;
    Expected<std::optional<Candidate>, StoreError> readRow(const DomainConfig &domain,
                                                           const QString &rowId) override;
    Expected<QHash<QString, Candidate>, StoreError> readRows(const DomainConfig &domain,
                                                             const QStringList &rowIds) override;
    Expected<QList<Rejection>, StoreError> activeRejections(const DomainConfig &domain) override;
    Expected<Rejection, StoreError> recordRejection(const Action &action,
                                                    const Actor &actor) override;
    Expected<int, StoreError> recordRejections(const QList<const Action *> &actions,
                                               const Actor &actor) override;
    Expected<int, StoreError> undoRejection(const Action &action, const Actor &actor) override;
    HeldActionStore *heldActionStore() override { return this; }

    // HeldActionStore (postgres/heldactionlog.cpp).
    Expected<QList<HeldAction>, StoreError> heldActions(const HeldFilter &filter) override;
    Expected<QList<qint64>, StoreError> idsHeldNow(const HeldFilter &filter) override;
    Expected<QHash<QString, qint64>, StoreError>
    applyHeldSync(const QString &domain, const HeldSyncPlan &plan, const Actor &run) override;
    Expected<QList<HeldGroup>, StoreError> heldGroups() override;
    Expected<QList<HeldClaim>, StoreError> claimHeldMany(const QList<qint64> &ids,
                                                         const Actor &approver) override;
    Expected<QSet<qint64>, StoreError> settleApprovedMany(const QList<HeldSettle> &settles,
                                                          const Actor &approver) override;
    Expected<QList<HeldClaim>, StoreError> rejectHeldMany(const QList<qint64> &ids, const Actor &by,
                                                          const QString &reason) override;

    QString connectionName() const;

private:
    PgJobStore(std::unique_ptr<PgConnection> conn, const ReclaimConfig &config, bool readOnly);
    // Reclaim's own schema, created idempotently in one transaction (only under the lock).
    Expected<bool, StoreError> migrate();
    // The connection, opened anew first when the server dropped the old one (a restart): one
    // lost connection must not fail every later statement of the run.
    PgConnection &live();
    // Runs one call under the watchdog: a server that stops answering (SIGSTOP, a frozen host)
    // fails the call after m_callLimit instead of hanging the run.
    template <typename Call> auto watched(Call &&call);
    // held → `to` with `detail` for each of `ids` still held (claimHeldMany, rejectHeldMany).
    Expected<QList<HeldClaim>, StoreError> moveHeldMany(const QList<qint64> &ids, HeldState to,
                                                        const QString &detail, const Actor &by);
    // A write a read-only store refuses, with what it was.
    std::optional<StoreError> refusedWhenReadOnly(const QString &what) const;
    // A batch's outcomes after its connection was lost in the transaction (batchwrite.h).
    Expected<QList<WriteOutcome>, StoreError> settleAfterCut(const QList<const Action *> &actions,
                                                             const StoreError &cut);
    // The SQL types of the domain's row key, read once per store.
    Expected<RowKeyTypes, StoreError> rowKeyTypes(PgConnection &conn, const DomainConfig &domain);
    // Retries the audit completions that could not be written yet (the server was away).
    void finishPending();

    // An audit row's completion still to write.
    struct PendingFinish
    {
        Action action;
        Actor actor;
    };

    std::unique_ptr<PgConnection> m_conn;
    ReclaimConfig m_config;
    bool m_readOnly;
    bool m_migrated = false;
    QList<PendingFinish> m_unfinished;
    QHash<QString, RowKeyTypes> m_rowKeyTypes; // by domain name, read once per store
    std::chrono::milliseconds m_callLimit;
    PgWatchdog m_watchdog;
};

} // namespace reclaim
