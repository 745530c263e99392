#include "fencing/pgfence.h"

#include <QSqlQuery>
#include <QVariant>

namespace reclaim::pgfence {

QStringList schemaStatements()
{
    return {
        QStringLiteral("CREATE TABLE IF NOT EXISTS reclaim.fence ("
                       " id integer PRIMARY KEY CHECK (id = 1),"
                       " generation bigint NOT NULL,"
                       " started_at timestamptz NOT NULL DEFAULT now())"),
        QStringLiteral(
            "INSERT INTO reclaim.fence (id, generation) VALUES (1, 0) ON CONFLICT DO NOTHING"),
    };
}

std::optional<bool> start(QSqlQuery &q, qint64 generation)
{
    q.prepare(QStringLiteral("UPDATE reclaim.fence SET generation = ?, started_at = now() "
                             "WHERE id = 1 AND generation <= ?"));
    q.addBindValue(generation);
    q.addBindValue(generation);
    if (!q.exec())
        return std::nullopt;
    return q.numRowsAffected() == 1;
}

std::optional<qint64> holdForWrite(QSqlQuery &q)
{
    if (!q.exec(QStringLiteral("SELECT generation FROM reclaim.fence WHERE id = 1 FOR SHARE")) ||
        !q.next())
        return std::nullopt;
    return q.value(0).toLongLong();
}

} // namespace reclaim::pgfence
