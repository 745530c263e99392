// The audit trail port on PostgreSQL: pages of reclaim.audit by keyset (id), so page N costs what
// page 1 costs however deep the operator scrolls. Thread-confined like every PgConnection user.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/audittrail.h"
#include "postgres/pgconnection.h"

#include <QStringList>
#include <memory>

namespace reclaim {

// Idempotent statements (part of Reclaim's schema): the index that finds one job's history
// newest first without the domain.
QStringList auditTrailSchemaStatements();

class PgAuditTrail final : public AuditTrail
{
public:
    static Expected<std::unique_ptr<PgAuditTrail>, StoreError> open(const ReclaimConfig &config);
    ~PgAuditTrail() override;
    Q_DISABLE_COPY_MOVE(PgAuditTrail)

    Expected<AuditPage, StoreError> page(const AuditPageRequest &request) override;

private:
    explicit PgAuditTrail(std::unique_ptr<PgConnection> conn);
    std::unique_ptr<PgConnection> m_conn;
};

} // namespace reclaim
