#include "util/sqlinline.h"

#include <QSqlDriver>
#include <QSqlField>
#include <QSqlQuery>

namespace reclaim {

namespace {

// As QtSql decides it for bound values: an invalid or null variant, or a null string or byte
// array, is SQL NULL.
bool isSqlNull(const QVariant &v)
{
    if (!v.isValid() || v.isNull())
        return true;
    if (v.metaType().id() == QMetaType::QString)
        return v.toString().isNull();
    if (v.metaType().id() == QMetaType::QByteArray)
        return v.toByteArray().isNull();
    return false;
}

} // namespace

QString inlineValues(const QSqlQuery &q, const QString &sql, const QVariantList &values)
{
    const QSqlDriver *driver = q.driver();
    if (!driver)
        return {};
    QString out;
    out.reserve(sql.size());
    qsizetype next = 0;
    QChar quote; // inside '…' or "…" while set
    for (const QChar c : sql) {
        if (!quote.isNull()) {
            out += c;
            if (c == quote)
                quote = QChar(); // a doubled quote closes and reopens: the same result
            continue;
        }
        if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
            quote = c;
            out += c;
            continue;
        }
        if (c != QLatin1Char('?')) {
            out += c;
            continue;
        }
        if (next >= values.size())
            return {};
        const QVariant &v = values.at(next++);
        QSqlField field(QString(), v.metaType());
        if (isSqlNull(v))
            field.clear();
        else
            field.setValue(v);
        out += driver->formatValue(field, false);
    }
    return next == values.size() ? out : QString();
}

bool execInline(QSqlQuery &q, const QString &sql, const QVariantList &values)
{
    const QString text = inlineValues(q, sql, values);
    if (text.isEmpty())
        return false;
    return q.exec(text);
}

} // namespace reclaim
