#include "postgres/candidatequery.h"

#include "postgres/pgconnection.h"
#include "postgres/sqltext.h"
#include "util/sqlinline.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

namespace {

// The columns every row read selects, in the order candidateFrom() reads them.
QString selectColumns(const DomainConfig &d, RowJson rowJson)
{
    const JobColumns &c = d.columns;
    const QString typeExpr = c.type.isEmpty() ? QStringLiteral("''")
                                              : quoteIdentifier(c.type) + QStringLiteral("::text");
    QString columns =
        QStringLiteral("%1::text, %2::text, %3, %4::text, extract(epoch FROM %4)::float8")
            .arg(quoteIdentifier(c.id), quoteIdentifier(c.status), typeExpr,
                 quoteIdentifier(c.updatedAt));
    if (rowJson == RowJson::Read)
        columns += QStringLiteral(", row_to_json(t)::text");
    return columns;
}

} // namespace

CandidateQuery candidateQuery(const DomainConfig &d, RowJson rowJson)
{
    const JobColumns &c = d.columns;
    CandidateQuery out;
    out.sql = QStringLiteral("SELECT %1 FROM %2 AS t WHERE %3 IN (%4)")
                  .arg(selectColumns(d, rowJson), quoteTableName(d.table),
                       quoteIdentifier(c.status), placeholders(d.candidateStatuses.size()));
    if (!d.types.isEmpty())
        out.sql += QStringLiteral(" AND %1 IN (%2)")
                       .arg(quoteIdentifier(c.type), placeholders(d.types.size()));
    out.sql += QStringLiteral(" AND %1 < now() - make_interval(secs => ?) ORDER BY %1")
                   .arg(quoteIdentifier(c.updatedAt));
    for (const QString &s : d.candidateStatuses)
        out.binds << s;
    for (const QString &t : d.types)
        out.binds << t;
    out.binds << static_cast<double>(d.threshold.count());
    return out;
}

namespace {

// Status and type take a handful of values over thousands of rows: one shared copy of each.
class Interner
{
public:
    QString operator()(const QString &s)
    {
        const auto it = m_seen.constFind(s);
        if (it != m_seen.cend())
            return *it;
        m_seen.insert(s);
        return s;
    }

private:
    QSet<QString> m_seen;
};

Candidate candidateFrom(const QSqlQuery &q, const DomainConfig &d, RowJson rowJson,
                        Interner &intern)
{
    Candidate cand;
    cand.domain = d.name;
    cand.id = q.value(0).toString();
    cand.status = intern(q.value(1).toString());
    cand.type = intern(q.value(2).toString());
    cand.updatedAtText = q.value(3).toString();
    cand.updatedAt = QDateTime::fromMSecsSinceEpoch(
        static_cast<qint64>(q.value(4).toDouble() * 1000.0), Qt::UTC);
    if (rowJson == RowJson::Read)
        cand.rowJson = compactUtf8(q.value(5));
    return cand;
}

} // namespace

Expected<std::optional<Candidate>, StoreError>
readRowById(PgConnection &conn, const DomainConfig &d, const QString &rowId)
{
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    // ::text on the column, so an id that is not of the column's type finds nothing rather than
    // failing the statement.
    if (!q.prepare(QStringLiteral("SELECT %1 FROM %2 AS t WHERE %3::text = ?")
                       .arg(selectColumns(d, RowJson::Read), quoteTableName(d.table),
                            quoteIdentifier(d.columns.id))))
        return unexpected(
            conn.failure(QStringLiteral("preparing the row lookup of %1").arg(d.name), q));
    q.addBindValue(rowId);
    if (!q.exec())
        return unexpected(conn.failure(QStringLiteral("reading %1 row %2").arg(d.table, rowId), q));
    if (!q.next())
        return std::optional<Candidate>();
    Interner intern;
    return std::optional<Candidate>(candidateFrom(q, d, RowJson::Read, intern));
}

Expected<QHash<QString, Candidate>, StoreError> readRowsById(PgConnection &conn,
                                                             const DomainConfig &d,
                                                             const QString &idType,
                                                             const QStringList &rowIds)
{
    QHash<QString, Candidate> out;
    if (rowIds.isEmpty())
        return out;
    QJsonArray ids;
    for (const QString &id : rowIds)
        ids.append(id);
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    // Without each row's JSON: what an approval decides on is the status and updatedAt, and
    // row_to_json for 5,000 rows a step was a third of reading them.
    const QString sql = QStringLiteral("SELECT %1 FROM %2 AS t WHERE t.%3 IN (SELECT "
                                       "json_array_elements_text(?::json)::%4)")
                            .arg(selectColumns(d, RowJson::Skip), quoteTableName(d.table),
                                 quoteIdentifier(d.columns.id), idType);
    const QString what = QStringLiteral("reading %1 rows of %2").arg(rowIds.size()).arg(d.table);
    if (!execInline(q, sql, {QString::fromUtf8(QJsonDocument(ids).toJson(QJsonDocument::Compact))}))
        return unexpected(conn.failure(what, q));
    Interner intern;
    while (q.next()) {
        Candidate c = candidateFrom(q, d, RowJson::Skip, intern);
        const QString id = c.id;
        out.insert(id, std::move(c));
    }
    if (q.lastError().isValid())
        return unexpected(conn.failure(what, q));
    return out;
}

Expected<QList<Candidate>, StoreError> readCandidates(PgConnection &conn, const DomainConfig &d,
                                                      RowJson rowJson)
{
    const CandidateQuery query = candidateQuery(d, rowJson);
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    if (!q.prepare(query.sql))
        return unexpected(
            conn.failure(QStringLiteral("preparing the candidate query of %1").arg(d.name), q));
    for (const QVariant &v : query.binds)
        q.addBindValue(v);
    if (!q.exec())
        return unexpected(conn.failure(QStringLiteral("reading candidates of %1").arg(d.name), q));
    QList<Candidate> out;
    // libpq holds the whole result already: its size is known, and a list grown row by row to a
    // million candidates would hold up to twice their array while it grows.
    if (q.size() > 0)
        out.reserve(q.size());
    Interner intern;
    while (q.next())
        out << candidateFrom(q, d, rowJson, intern);
    if (q.lastError().isValid())
        return unexpected(conn.failure(QStringLiteral("reading candidates of %1").arg(d.name), q));
    return out;
}

} // namespace reclaim
