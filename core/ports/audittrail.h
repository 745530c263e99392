// The audit trail port: Reclaim's audit rows read back, newest first, one page at a time, with
// the filters the console's history view offers (job, domain, operator, result, time).
#pragma once

#include "ports/jobstore.h"
#include "util/expected.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace reclaim {

struct AuditEntry
{
    qint64 id = 0;
    QDateTime at;
    QString runId;
    QString actorKind;
    QString actorHost;
    QString actorUser;
    qint64 generation = 0;
    QString domain;
    QString rowId;
    QString action; // REQUEUE / FAIL
    QString observedStatus;
    QString observedUpdatedAt;
    QString result; // an action result's name, or "rejection-undone"
    QString detail;
};

// Every set field must match; empty fields match everything.
struct AuditFilter
{
    QString rowId;  // the job row's id, exactly
    QString domain; // exactly
    QString actor;  // the operator: actor_user, or "user@host"
    QString result; // exactly ("applied", "rejected", ...)
    QDateTime from; // at >= from
    QDateTime to;   // at < to

    bool operator==(const AuditFilter &) const = default;
};

struct AuditPageRequest
{
    AuditFilter filter;
    qint64 beforeId = 0; // 0: from the newest; else only rows older than this id
    int limit = 200;
};

struct AuditPage
{
    QList<AuditEntry> entries; // newest first
    bool more = false;         // older rows match the filter too
};

class AuditTrail
{
public:
    virtual ~AuditTrail() = default;

    // One page, newest first (by id: the order the rows were recorded). An empty page where
    // Reclaim's schema does not exist yet.
    virtual Expected<AuditPage, StoreError> page(const AuditPageRequest &request) = 0;
};

} // namespace reclaim
