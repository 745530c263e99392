// The job store on PostgreSQL through QtSql's QPSQL driver. Thread-confined: create, use and
// destroy it on one thread (the connection belongs to that thread).
#pragma once

#include "config/reclaimconfig.h"
#include "store/jobstore.h"

#include <QString>
#include <QVariantList>

class QSqlQuery;

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

    QString connectionName() const { return m_connectionName; }

private:
    PgJobStore(QString connectionName, QString endpoint, bool readOnly);
    StoreError failure(const QString &what, const QSqlQuery &query) const;

    QString m_connectionName;
    QString m_endpoint; // redacted URL, for messages
    bool m_readOnly;
};

// The SQL identifier, double-quoted (config validation already refused anything but plain names).
QString quoteIdentifier(const QString &name);

// The candidate query of one domain exactly as readCandidates() prepares it, with its bind
// values in order (the benchmark EXPLAINs this very statement).
struct CandidateQuery
{
    QString sql;
    QVariantList binds;
};
CandidateQuery candidateQuery(const DomainConfig &domain);

} // namespace reclaim
