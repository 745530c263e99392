#include "postgres/reclaimschema.h"

#include "fencing/pgfence.h"
#include "postgres/heldactionlog.h"
#include "postgres/pgaudittrail.h"
#include "postgres/rejectionlog.h"

namespace reclaim {

QStringList reclaimSchemaStatements()
{
    QStringList statements{
        // "IF NOT EXISTS" is not safe against a concurrent creator (two runners starting on a
        // fresh database: one fails on pg_namespace's unique index). Serialise the creators
        // with a transaction-scoped advisory lock; the key is arbitrary but fixed.
        QStringLiteral("SELECT pg_advisory_xact_lock(7262534101)"),
        QStringLiteral("CREATE SCHEMA IF NOT EXISTS reclaim"),
    };
    // The fence (core/fencing/pgfence.cpp) decides which run may still write.
    statements << pgfence::schemaStatements();
    statements << QStringList{
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.audit ("
                       " id bigserial PRIMARY KEY,"
                       " at timestamptz NOT NULL DEFAULT now(),"
                       " run_id text NOT NULL,"
                       " actor_kind text NOT NULL,"
                       " actor_host text NOT NULL,"
                       " actor_user text NOT NULL,"
                       " generation bigint NOT NULL,"
                       " domain text NOT NULL,"
                       " row_id text NOT NULL,"
                       " action text NOT NULL,"
                       " observed_status text NOT NULL,"
                       " observed_updated_at text NOT NULL,"
                       " result text NOT NULL,"
                       " detail text) WITH (fillfactor = 50)"),
        // Every audit row is written twice: recorded "started" before its action is tried, then
        // completed with the result. Room on its page makes the completion a HOT update (no new
        // entry in any of its three indexes): two thirds less time completing a batch. Tables
        // made before this was set get it once (new pages only); a fillfactor someone chose is
        // left alone. Checked first: ALTER TABLE would take a lock on every run.
        QStringLiteral("DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class AS c, "
                       "unnest(coalesce(c.reloptions, '{}')) AS o WHERE c.oid = "
                       "'reclaim.audit'::regclass AND o LIKE 'fillfactor=%') THEN "
                       "ALTER TABLE reclaim.audit SET (fillfactor = 50); END IF; END$$"),
        QStringLiteral(
            "CREATE INDEX IF NOT EXISTS audit_row_idx ON reclaim.audit (domain, row_id, at)"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.requeue ("
                       " domain text NOT NULL,"
                       " row_id text NOT NULL,"
                       " at timestamptz NOT NULL DEFAULT now(),"
                       " generation bigint NOT NULL)"),
        QStringLiteral(
            "CREATE INDEX IF NOT EXISTS requeue_row_idx ON reclaim.requeue (domain, row_id, at)"),
        // The audit row of the attempt that took this use of the budget (recorded before the
        // enqueue; given back when the enqueue left nothing runnable). Added to older schemas.
        // Checked first: ALTER TABLE would take an exclusive lock on every run.
        QStringLiteral("DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
                       "'reclaim.requeue'::regclass AND attname = 'audit_id' AND NOT "
                       "attisdropped) THEN "
                       "ALTER TABLE reclaim.requeue ADD COLUMN audit_id bigint; END IF; END$$"),
        // A batch's audit completions give budget uses back by audit id.
        QStringLiteral(
            "CREATE INDEX IF NOT EXISTS requeue_audit_idx ON reclaim.requeue (audit_id)"),
    };
    // Operators' rejections (core/postgres/rejectionlog.cpp): a table of its own, added after
    // the first release, so every statement is additive and idempotent.
    statements << rejectionSchemaStatements();
    statements << auditTrailSchemaStatements();
    // Held actions and their transitions (#29), additive like the rejections.
    statements << heldActionSchemaStatements();
    return statements;
}

} // namespace reclaim
