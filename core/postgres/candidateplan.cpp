#include "postgres/candidateplan.h"

#include "postgres/sqltext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlField>
#include <QSqlQuery>

namespace reclaim {

namespace {

void walk(const QJsonObject &node, CandidatePlan &plan)
{
    plan.nodeTypes << node.value(QStringLiteral("Node Type")).toString();
    const QString index = node.value(QStringLiteral("Index Name")).toString();
    if (!index.isEmpty())
        plan.indexes << index;
    for (const QJsonValue &child : node.value(QStringLiteral("Plans")).toArray())
        walk(child.toObject(), plan);
}

QString serverText(const QSqlQuery &q)
{
    const QString db = q.lastError().databaseText().simplified();
    return db.isEmpty() ? q.lastError().text().simplified() : db;
}

} // namespace

Expected<QString, QString> inlineBinds(const QSqlDatabase &db, const CandidateQuery &query)
{
    QString sql = query.sql;
    qsizetype at = 0;
    for (const QVariant &v : query.binds) {
        at = sql.indexOf(QLatin1Char('?'), at);
        if (at < 0)
            return unexpected(QStringLiteral("fewer placeholders than bind values"));
        QSqlField field(QStringLiteral("v"), v.metaType());
        field.setValue(v);
        const QString literal = db.driver()->formatValue(field);
        sql.replace(at, 1, literal);
        at += literal.size();
    }
    return sql;
}

Expected<CandidatePlan, QString>
explainCandidateQuery(QSqlDatabase &db, const CandidateQuery &query, const QString &options)
{
    const auto sql = inlineBinds(db, query);
    if (!sql)
        return unexpected(sql.error());
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("EXPLAIN (%1) %2").arg(options, *sql)) || !q.next())
        return unexpected(serverText(q));
    CandidatePlan plan;
    plan.root = QJsonDocument::fromJson(q.value(0).toString().toUtf8()).array().first().toObject();
    const QJsonObject top = plan.root.value(QStringLiteral("Plan")).toObject();
    walk(top, plan);
    plan.estimatedRows = top.value(QStringLiteral("Plan Rows")).toDouble();
    return plan;
}

Expected<QHash<QString, QStringList>, QString> indexColumns(QSqlDatabase &db, const QString &table)
{
    QHash<QString, QStringList> out;
    QSqlQuery q(db);
    // to_regclass of the quoted name: the configured schema (or search_path for a bare name),
    // exactly as the candidate query resolves it.
    q.prepare(
        QStringLiteral("SELECT i.relname, a.attname FROM pg_index x "
                       "JOIN pg_class i ON i.oid = x.indexrelid "
                       "CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) "
                       "JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum "
                       "WHERE x.indrelid = to_regclass(?) ORDER BY i.relname, k.n"));
    q.addBindValue(quoteTableName(table));
    if (!q.exec())
        return unexpected(serverText(q));
    while (q.next())
        out[q.value(0).toString()] << q.value(1).toString();
    return out;
}

bool isCompositeIndex(const DomainConfig &d, const QStringList &columns)
{
    if (columns.isEmpty() || columns.first() != d.columns.status ||
        !columns.contains(d.columns.updatedAt))
        return false;
    return d.types.isEmpty() || columns.contains(d.columns.type) ||
           columns.indexOf(d.columns.updatedAt) == 1;
}

QString compositeIndexUsed(const DomainConfig &d, const CandidatePlan &plan,
                           const QHash<QString, QStringList> &columns)
{
    for (const QString &name : plan.indexes)
        if (isCompositeIndex(d, columns.value(name)))
            return name;
    return {};
}

} // namespace reclaim
