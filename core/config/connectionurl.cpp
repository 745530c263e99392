#include "config/connectionurl.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace reclaim {

namespace {

QString redactedUrl(const QString &scheme, const QString &user, bool hasPassword,
                    const QString &host, int port, const QString &path)
{
    QString auth;
    if (!user.isEmpty() || hasPassword)
        auth = user + (hasPassword ? QStringLiteral(":***") : QString()) + QLatin1Char('@');
    return QStringLiteral("%1://%2%3:%4%5").arg(scheme, auth, host).arg(port).arg(path);
}

} // namespace

QString PostgresEndpoint::redacted() const
{
    return redactedUrl(QStringLiteral("postgresql"), user, !password.isEmpty(), host, port,
                       QLatin1Char('/') + database);
}

QString RedisEndpoint::redacted() const
{
    return redactedUrl(QStringLiteral("redis"), user, !password.isEmpty(), host, port,
                       QStringLiteral("/%1").arg(database));
}

Expected<PostgresEndpoint, QString> parsePostgresUrl(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    const QString scheme = url.scheme();
    if (!url.isValid() ||
        (scheme != QLatin1String("postgresql") && scheme != QLatin1String("postgres")))
        return unexpected(QStringLiteral("not a postgresql:// URL"));
    PostgresEndpoint e;
    e.host = url.host();
    if (e.host.isEmpty())
        return unexpected(QStringLiteral("postgresql URL has no host"));
    e.port = url.port(5432);
    e.user = url.userName(QUrl::FullyDecoded);
    e.password = url.password(QUrl::FullyDecoded);
    e.database = url.path().mid(1);
    if (e.database.isEmpty())
        return unexpected(QStringLiteral("postgresql URL has no database name"));
    const QUrlQuery query(url);
    QStringList opts;
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        static const QRegularExpression plain(QStringLiteral("^[a-z_]+$"));
        if (!plain.match(key).hasMatch())
            return unexpected(
                QStringLiteral("postgresql URL has an invalid option name '%1'").arg(key));
        opts << key + QLatin1Char('=') + value;
    }
    e.options = opts.join(QLatin1Char(';'));
    return e;
}

Expected<RedisEndpoint, QString> parseRedisUrl(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.scheme() != QLatin1String("redis"))
        return unexpected(QStringLiteral("not a redis:// URL (TLS is not supported)"));
    RedisEndpoint e;
    e.host = url.host();
    if (e.host.isEmpty())
        return unexpected(QStringLiteral("redis URL has no host"));
    e.port = url.port(6379);
    e.user = url.userName(QUrl::FullyDecoded);
    e.password = url.password(QUrl::FullyDecoded);
    const QString path = url.path().mid(1);
    if (!path.isEmpty()) {
        bool ok = false;
        e.database = path.toInt(&ok);
        if (!ok || e.database < 0)
            return unexpected(QStringLiteral("redis URL database '%1' is not a number").arg(path));
    }
    return e;
}

QString redactSecrets(QString text)
{
    // Every credential the pattern redacts follows a "://"; most texts (the console redacts each
    // candidate's summary, 20,000 per report) have none, and need not run the regex at all.
    if (!text.contains(QLatin1String("://")))
        return text;
    static const QRegularExpression userinfo(
        QStringLiteral("([a-z][a-z0-9+.-]*://[^:/@\\s]*):[^@\\s]*@"));
    return text.replace(userinfo, QStringLiteral("\\1:***@"));
}

} // namespace reclaim
