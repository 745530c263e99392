#include "fencing/pgfence.h"

#include "util/sqlinline.h"

#include <QSqlQuery>
#include <QVariant>

namespace reclaim::pgfence {

QStringList schemaStatements()
{
    return {
        // Earlier versions kept one row (id = 1) for every deployment: set it aside once.
        // pg_attribute, not information_schema: that view costs ~20 ms a look, on every run.
        QStringLiteral("DO $$BEGIN IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
                       "to_regclass('reclaim.fence') AND attname = 'id' AND NOT attisdropped) "
                       "THEN ALTER TABLE reclaim.fence RENAME TO fence_single; END IF; END$$"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.fence ("
                       " lock_key text PRIMARY KEY,"
                       " generation bigint NOT NULL,"
                       " started_at timestamptz NOT NULL DEFAULT now())"),
    };
}

bool carryOver(QSqlQuery &q, const QString &lockKey)
{
    if (!q.exec(QStringLiteral("SELECT to_regclass('reclaim.fence_single') IS NOT NULL")) ||
        !q.next())
        return false;
    if (!q.value(0).toBool())
        return true;
    q.prepare(QStringLiteral("INSERT INTO reclaim.fence (lock_key, generation, started_at) "
                             "SELECT ?, generation, started_at FROM reclaim.fence_single "
                             "ON CONFLICT (lock_key) DO UPDATE SET generation = "
                             "GREATEST(reclaim.fence.generation, EXCLUDED.generation)"));
    q.addBindValue(lockKey);
    return q.exec() && q.exec(QStringLiteral("DROP TABLE reclaim.fence_single"));
}

std::optional<qint64> highest(QSqlQuery &q, const QString &lockKey)
{
    // Before its first writing run migrates it, the fence may still be the single row of
    // earlier versions (no lock_key): that row is what the migration carries over to this key.
    if (!q.exec(QStringLiteral("SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
                               "to_regclass('reclaim.fence') AND attname = 'lock_key' AND NOT "
                               "attisdropped)")) ||
        !q.next())
        return std::nullopt;
    if (!q.value(0).toBool()) {
        if (!q.exec(QStringLiteral("SELECT coalesce(max(generation), 0) FROM reclaim.fence")) ||
            !q.next())
            return std::nullopt;
        return q.value(0).toLongLong();
    }
    q.prepare(QStringLiteral("SELECT generation FROM reclaim.fence WHERE lock_key = ?"));
    q.addBindValue(lockKey);
    if (!q.exec())
        return std::nullopt;
    return q.next() ? q.value(0).toLongLong() : 0;
}

std::optional<bool> start(QSqlQuery &q, qint64 generation, const QString &lockKey)
{
    q.prepare(QStringLiteral("INSERT INTO reclaim.fence (lock_key, generation) VALUES (?, ?) "
                             "ON CONFLICT (lock_key) DO UPDATE SET generation = "
                             "EXCLUDED.generation, started_at = now() "
                             "WHERE reclaim.fence.generation <= EXCLUDED.generation"));
    q.addBindValue(lockKey);
    q.addBindValue(generation);
    if (!q.exec())
        return std::nullopt;
    return q.numRowsAffected() == 1;
}

std::optional<qint64> holdForWrite(QSqlQuery &q, const QString &lockKey)
{
    // Once per batch: one round trip (util/sqlinline.h), not a PREPARE, EXECUTE and DEALLOCATE.
    if (!execInline(
            q, QStringLiteral("SELECT generation FROM reclaim.fence WHERE lock_key = ? FOR SHARE"),
            {lockKey}))
        return std::nullopt;
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace reclaim::pgfence
