#include "postgres/planreads.h"

#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"
#include "util/sqlinline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

QString jsonIds(const QStringList &rowIds)
{
    return QString::fromUtf8(
        QJsonDocument(QJsonArray::fromStringList(rowIds)).toJson(QJsonDocument::Compact));
}

} // namespace

Expected<QHash<QString, int>, StoreError>
readRecentRequeues(PgConnection &conn, const DomainConfig &d, const QStringList &rowIds)
{
    QHash<QString, int> used;
    const auto schema = conn.hasReclaimTable(QStringLiteral("requeue"));
    if (!schema)
        return unexpected(schema.error());
    if (!*schema || rowIds.isEmpty())
        return used;
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    if (!execInline(
            q,
            QStringLiteral(
                "SELECT row_id, count(*) FROM reclaim.requeue WHERE domain = ? AND row_id IN "
                "(SELECT json_array_elements_text(?::json)) AND at > now() - make_interval(secs "
                "=> ?) GROUP BY row_id"),
            {d.name, jsonIds(rowIds), static_cast<double>(d.requeueWindow.count())}))
        return unexpected(conn.failure(QStringLiteral("reading the retry budget of %1 rows of %2")
                                           .arg(rowIds.size())
                                           .arg(d.name),
                                       q));
    while (q.next())
        used.insert(q.value(0).toString(), q.value(1).toInt());
    return used;
}

QString restoreSetStatement(const RestoreRule &rule)
{
    // :jobId, not ::jobId (a cast) nor :jobIdX (another name).
    static const QRegularExpression placeholder(QStringLiteral("(?<!:):jobId\\b"));
    QString inner = rule.query.trimmed();
    while (inner.endsWith(QLatin1Char(';')))
        inner.chop(1);
    inner.replace(placeholder, QStringLiteral("ids.id"));
    return QStringLiteral("SELECT ids.n, r.* FROM json_array_elements_text(?::json) WITH "
                          "ORDINALITY AS ids(id, n) LEFT JOIN LATERAL (SELECT * FROM (%1) AS "
                          "restore LIMIT 1) AS r ON true")
        .arg(inner);
}

Expected<QList<std::optional<QByteArray>>, StoreError>
readRestorePayloads(PgConnection &conn, const DomainConfig &d, const RestoreRule &rule,
                    const QStringList &rowIds)
{
    QList<std::optional<QByteArray>> out(rowIds.size());
    if (rowIds.isEmpty())
        return out;
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    if (!execInline(q, restoreSetStatement(rule), {jsonIds(rowIds)}))
        return unexpected(conn.failure(
            QStringLiteral("running the restore query of %1 over a set of rows").arg(d.name), q));
    while (q.next()) {
        const qint64 n = q.value(0).toLongLong();
        const QVariant payload = q.value(1);
        if (n >= 1 && n <= out.size() && !payload.isNull())
            out[n - 1] = compactUtf8(payload);
    }
    return out;
}

} // namespace reclaim
