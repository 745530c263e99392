#include "postgres/sqltext.h"

#include <QStringList>

namespace reclaim {

QString quoteIdentifier(const QString &name)
{
    QString escaped = name;
    escaped.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

QString quoteTableName(const QString &name)
{
    QStringList parts;
    for (const QString &part : name.split(QLatin1Char('.')))
        parts << quoteIdentifier(part);
    return parts.join(QLatin1Char('.'));
}

QString placeholders(qsizetype n)
{
    QStringList marks;
    for (qsizetype i = 0; i < n; ++i)
        marks << QStringLiteral("?");
    return marks.join(QStringLiteral(", "));
}

QVariant sqlText(const QString &s)
{
    return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}

QString epochMsOf(const QString &column)
{
    return QStringLiteral("floor(extract(epoch FROM %1) * 1000)::bigint").arg(column);
}

QDateTime utcFromEpochMs(const QVariant &value)
{
    if (value.isNull())
        return {};
    return QDateTime::fromMSecsSinceEpoch(value.toLongLong(), Qt::UTC);
}

QByteArray compactUtf8(const QVariant &value)
{
    QByteArray bytes = value.toString().toUtf8();
    bytes.squeeze();
    return bytes;
}

} // namespace reclaim
