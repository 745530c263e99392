#include "config/connectionurl.h"

#include "config/clusterurl.h"
#include "config/sentinelurl.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>
#include <optional>

namespace reclaim {

namespace {

// "user:***@", "user@" or nothing: the userinfo of a URL as logs may show it.
QString redactedUserinfo(const QString &user, bool hasPassword)
{
    if (user.isEmpty() && !hasPassword)
        return {};
    return user + (hasPassword ? QStringLiteral(":***") : QString()) + QLatin1Char('@');
}

QString redactedUrl(const QString &scheme, const QString &user, bool hasPassword,
                    const QString &host, int port, const QString &path)
{
    const QString auth = redactedUserinfo(user, hasPassword);
    return QStringLiteral("%1://%2%3:%4%5").arg(scheme, auth, host).arg(port).arg(path);
}

} // namespace

QString PostgresEndpoint::redacted() const
{
    if (isSocket()) {
        // libpq's socket is a file in that directory named after the port: name the file, the
        // thing an operator looks for when the connection fails.
        const QString auth = redactedUserinfo(user, !password.isEmpty());
        return QStringLiteral("postgresql://%1/%2?host=%3 (Unix socket %3/.s.PGSQL.%4)")
            .arg(auth, database, host, QString::number(port));
    }
    return redactedUrl(QStringLiteral("postgresql"), user, !password.isEmpty(), host, port,
                       QLatin1Char('/') + database);
}

QString RedisEndpoint::serverName() const
{
    if (isSocket())
        return QStringLiteral("unix socket %1").arg(socketPath);
    const QString hostPort = host.contains(QLatin1Char(':'))
                                 ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                 : QStringLiteral("%1:%2").arg(host).arg(port);
    return tls.enabled ? hostPort + QStringLiteral(" (TLS)") : hostPort;
}

QString RedisEndpoint::redacted() const
{
    if (sentinel) {
        const QString auth = redactedUserinfo(user, !password.isEmpty());
        return QStringLiteral("%1://%2%3/%4")
            .arg(tls.enabled ? QLatin1String("rediss+sentinel") : QLatin1String("redis+sentinel"),
                 auth, sentinel->describe(), QString::number(database));
    }
    if (cluster) {
        const QString auth = redactedUserinfo(user, !password.isEmpty());
        return QStringLiteral("%1://%2%3")
            .arg(tls.enabled ? QLatin1String("rediss+cluster") : QLatin1String("redis+cluster"),
                 auth, cluster->describe());
    }
    if (isSocket()) {
        const QString auth = redactedUserinfo(user, !password.isEmpty());
        return QStringLiteral("unix://%1%2?db=%3").arg(auth, socketPath).arg(database);
    }
    return redactedUrl(tls.enabled ? QStringLiteral("rediss") : QStringLiteral("redis"), user,
                       !password.isEmpty(), host, port, QStringLiteral("/%1").arg(database));
}

namespace {

const QLatin1String kPostgresForm("postgresql://user[:password]@host[:port]/database");
// Every form parseRedisUrl() takes, so an unknown scheme is answered with all of them.
const QLatin1String kRedisForm(
    "redis[s]://[[user]:password@]host[:port][/database], "
    "redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/masterName[/database], "
    "redis[s]+cluster://[[user]:password@]host[:port][,host[:port]...] or "
    "unix://[[user]:password@]/path/redis.sock[?db=N]");

// The scheme, or why there is none. Only [a-z0-9+.-] before "://" is taken as a scheme, so
// the name it returns can be quoted without quoting anything secret.
Expected<QString, QString> schemeOf(const QString &text, QLatin1String form)
{
    static const QRegularExpression scheme(QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*)://"));
    const QRegularExpressionMatch m = scheme.match(text);
    if (!m.hasMatch())
        return unexpected(QStringLiteral("not a URL (expected %1)").arg(form));
    return m.captured(1).toLower();
}

// Checks host and port by hand, so each problem gets its own message: QUrl alone cannot say
// what is wrong (a port of 70000 only makes the URL "invalid"), and its errorString() quotes
// the whole URL, password included, so none of its text ever reaches a message. Only text
// after the last '@' of the authority is ever quoted: the host and port, never userinfo.
Expected<std::optional<int>, QString> checkHostAndPort(const QString &text, qsizetype schemeLength)
{
    const auto found = urlAuthority(text.mid(schemeLength + 3));
    if (!found)
        return unexpected(found.error());
    const QString &authority = *found;
    const QString hostPort = authority.mid(authority.lastIndexOf(QLatin1Char('@')) + 1);
    QString host;
    QString portText;
    if (hostPort.startsWith(QLatin1Char('['))) {
        const qsizetype close = hostPort.indexOf(QLatin1Char(']'));
        if (close < 0)
            return unexpected(QStringLiteral("the IPv6 host has no closing ']'"));
        host = hostPort.mid(1, close - 1);
        const QString after = hostPort.mid(close + 1);
        if (!after.isEmpty() && !after.startsWith(QLatin1Char(':')))
            return unexpected(QStringLiteral("unexpected text after the IPv6 host [%1]").arg(host));
        portText = after.mid(1);
    } else {
        const qsizetype colon = hostPort.indexOf(QLatin1Char(':'));
        host = colon < 0 ? hostPort : hostPort.left(colon);
        portText = colon < 0 ? QString() : hostPort.mid(colon + 1);
        if (portText.contains(QLatin1Char(':')))
            return unexpected(
                QStringLiteral("more than one ':' after the host (an IPv6 host needs brackets, "
                               "as in [::1]:port)"));
    }
    if (host.isEmpty())
        return unexpected(QStringLiteral("the host is missing"));
    if (portText.isEmpty())
        return std::optional<int>(); // "host" or "host:": the scheme's default port
    static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
    if (!digits.match(portText).hasMatch())
        return unexpected(QStringLiteral("port '%1' is not a number").arg(portText));
    const qint64 port = portText.size() > 6 ? 999999 : portText.toLongLong();
    if (port < 1 || port > 65535)
        return unexpected(QStringLiteral("port %1 is out of range (1 to 65535)").arg(portText));
    return std::optional<int>(static_cast<int>(port));
}

} // namespace

Expected<PostgresEndpoint, QString> parsePostgresUrl(const QString &text)
{
    const auto scheme = schemeOf(text, kPostgresForm);
    if (!scheme)
        return unexpected(scheme.error());
    if (*scheme != QLatin1String("postgresql") && *scheme != QLatin1String("postgres"))
        return unexpected(
            QStringLiteral("unknown scheme \"%1\" (expected %2)").arg(*scheme, kPostgresForm));
    // libpq's own form for a host that does not fit the authority, a Unix socket's directory
    // above all: postgresql:///db?host=/run/postgresql (and ?port=, which names the socket).
    const QUrl url(text, QUrl::StrictMode);
    const QUrlQuery hostQuery(url);
    const QString hostOption = hostQuery.queryItemValue(QStringLiteral("host"), QUrl::FullyDecoded);
    if (hostOption.isEmpty() || !url.isValid() || !url.host().isEmpty()) {
        if (!hostOption.isEmpty() && url.isValid())
            return unexpected(
                QStringLiteral("the host is given twice, in the URL and as ?host=; "
                               "give a Unix socket as postgresql:///database?host=/dir"));
        const auto port = checkHostAndPort(text, scheme->size());
        if (!port) {
            if (port.error() == QLatin1String("the host is missing"))
                return unexpected(
                    QStringLiteral("the host is missing (a Unix socket is given by "
                                   "its directory: postgresql:///database?host=/dir)"));
            return unexpected(port.error());
        }
    }
    if (!url.isValid())
        return unexpected(QStringLiteral("not a valid URL (percent-encode reserved characters "
                                         "such as '@', ':' or '/' in the user name or password)"));
    PostgresEndpoint e;
    e.host = hostOption.isEmpty() ? url.host() : hostOption;
    e.port = url.port(5432);
    const QString portOption = hostQuery.queryItemValue(QStringLiteral("port"), QUrl::FullyDecoded);
    if (!portOption.isEmpty()) {
        bool ok = false;
        const int p = portOption.toInt(&ok);
        if (!ok || p < 1 || p > 65535)
            return unexpected(
                QStringLiteral("option 'port': '%1' is not a port (1 to 65535)").arg(portOption));
        e.port = p;
    }
    e.user = url.userName(QUrl::FullyDecoded);
    e.password = url.password(QUrl::FullyDecoded);
    e.database = url.path().mid(1);
    if (e.database.isEmpty())
        return unexpected(QStringLiteral("no database name (expected %1)").arg(kPostgresForm));
    const QUrlQuery query(url);
    QStringList opts;
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        static const QRegularExpression plain(QStringLiteral("^[a-z_]+$"));
        if (!plain.match(key).hasMatch())
            return unexpected(QStringLiteral("invalid option name '%1'").arg(key));
        if (key == QLatin1String("host") || key == QLatin1String("port"))
            continue; // taken above: QPSQL sets them itself
        // QPSQL turns every ';' into a separator before libpq sees the string: refuse one.
        if (value.contains(QLatin1Char(';')))
            return unexpected(QStringLiteral("option '%1': a value may not contain ';'").arg(key));
        // A libpq conninfo value, single-quoted with \ and ' escaped: a space is part of it.
        QString quoted = value;
        quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
            .replace(QLatin1Char('\''), QStringLiteral("\\'"));
        opts << key + QStringLiteral("='") + quoted + QLatin1Char('\'');
    }
    e.options = opts.join(QLatin1Char(';'));
    return e;
}

namespace {

// An ACL user with no password would make hiredis skip AUTH and run as the default user:
// refused, so a forgotten password is a configuration error rather than other rights.
Expected<bool, QString> requirePasswordForUser(const QString &user, const QString &password)
{
    if (!user.isEmpty() && password.isEmpty())
        return unexpected(
            QStringLiteral(
                "user '%1' has no password: give user:password@ (percent-encoded), or drop the "
                "user name to connect as the default user")
                .arg(user));
    return true;
}

Expected<int, QString> parseDatabase(const QString &text)
{
    if (text.isEmpty())
        return 0;
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,5}$"));
    if (!digits.match(text).hasMatch())
        return unexpected(QStringLiteral("database '%1' is not a number").arg(text));
    return text.toInt();
}

// unix://[user[:password]@]/path/redis.sock[?db=N]: the authority is empty but for the
// credentials, and the path is the socket. Parsed by hand: QUrl wants a host after an '@'.
Expected<RedisEndpoint, QString> parseUnixUrl(const QString &text, RedisPassword password)
{
    const QString rest = text.mid(QStringLiteral("unix://").size());
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    if (slash < 0)
        return unexpected(QStringLiteral("no socket path (expected unix:///path/redis.sock)"));
    const QString authority = rest.left(slash);
    if (rest.indexOf(QLatin1Char('@'), slash) >= 0)
        return unexpected(QStringLiteral(
            "cannot tell where the user name and password end: percent-encode '/', '?', '#' "
            "and '@' in them (%2F, %3F, %23, %40)"));
    RedisEndpoint e;
    if (!authority.isEmpty()) {
        if (!authority.endsWith(QLatin1Char('@')))
            return unexpected(QStringLiteral(
                "unix:// takes no host: write unix:///path/redis.sock (three slashes)"));
        const QString userinfo = authority.chopped(1);
        const qsizetype colon = userinfo.indexOf(QLatin1Char(':'));
        e.user =
            QUrl::fromPercentEncoding(userinfo.left(colon < 0 ? userinfo.size() : colon).toUtf8());
        if (colon >= 0)
            e.password = QUrl::fromPercentEncoding(userinfo.mid(colon + 1).toUtf8());
    }
    QString pathAndQuery = rest.mid(slash);
    const qsizetype question = pathAndQuery.indexOf(QLatin1Char('?'));
    const QString query = question < 0 ? QString() : pathAndQuery.mid(question + 1);
    e.socketPath = QUrl::fromPercentEncoding(
        (question < 0 ? pathAndQuery : pathAndQuery.left(question)).toUtf8());
    if (e.socketPath.size() < 2)
        return unexpected(QStringLiteral("no socket path (expected unix:///path/redis.sock)"));
    for (const auto &[key, value] : QUrlQuery(query).queryItems(QUrl::FullyDecoded)) {
        if (key != QLatin1String("db"))
            return unexpected(QStringLiteral("unknown option '%1' (only db=N)").arg(key));
        const auto db = parseDatabase(value);
        if (!db)
            return unexpected(db.error());
        e.database = *db;
    }
    if (password == RedisPassword::InUrl) {
        const auto ok = requirePasswordForUser(e.user, e.password);
        if (!ok)
            return unexpected(ok.error());
    }
    return e;
}

} // namespace

Expected<RedisEndpoint, QString> parseRedisUrl(const QString &text, RedisPassword password)
{
    const auto scheme = schemeOf(text, kRedisForm);
    if (!scheme)
        return unexpected(scheme.error());
    // Sentinel and Unix sockets have parsers of their own; rediss:// is redis:// with TLS, and
    // rediss+sentinel:// is TLS to the sentinels and to the master they name.
    if (*scheme == QLatin1String("redis+sentinel") || *scheme == QLatin1String("rediss+sentinel")) {
        auto e = parseSentinelUrl(text);
        if (e)
            e->tls.enabled = *scheme == QLatin1String("rediss+sentinel");
        return e;
    }
    if (*scheme == QLatin1String("redis+cluster") || *scheme == QLatin1String("rediss+cluster")) {
        auto e = parseClusterUrl(text);
        if (!e)
            return e;
        e->tls.enabled = *scheme == QLatin1String("rediss+cluster");
        if (password == RedisPassword::InUrl) {
            const auto ok = requirePasswordForUser(e->user, e->password);
            if (!ok)
                return unexpected(ok.error());
        }
        return e;
    }
    if (*scheme == QLatin1String("unix"))
        return parseUnixUrl(text, password);
    const bool tls = *scheme == QLatin1String("rediss");
    if (*scheme != QLatin1String("redis") && !tls)
        return unexpected(
            QStringLiteral("unknown scheme \"%1\" (expected %2)").arg(*scheme, kRedisForm));
    const auto port = checkHostAndPort(text, scheme->size());
    if (!port)
        return unexpected(port.error());
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid())
        return unexpected(QStringLiteral("not a valid URL (percent-encode reserved characters "
                                         "such as '@', ':' or '/' in the user name or password)"));
    RedisEndpoint e;
    e.host = url.host();
    e.port = port->value_or(6379);
    e.user = url.userName(QUrl::FullyDecoded);
    e.password = url.password(QUrl::FullyDecoded);
    e.tls.enabled = tls;
    const auto db = parseDatabase(url.path().mid(1));
    if (!db)
        return unexpected(db.error());
    e.database = *db;
    if (password == RedisPassword::InUrl) {
        const auto ok = requirePasswordForUser(e.user, e.password);
        if (!ok)
            return unexpected(ok.error());
    }
    return e;
}

Expected<QString, QString> urlAuthority(const QString &afterScheme)
{
    static const QRegularExpression authorityEnd(QStringLiteral("[/?#]"));
    const qsizetype end = afterScheme.indexOf(authorityEnd);
    if (end >= 0 && afterScheme.indexOf(QLatin1Char('@'), end) >= 0)
        return unexpected(QStringLiteral(
            "cannot tell where the user name and password end: percent-encode '/', '?', '#' "
            "and '@' in them (%2F, %3F, %23, %40)"));
    return end < 0 ? afterScheme : afterScheme.left(end);
}

Expected<ServerListUrl, QString> splitServerListUrl(const QString &url, QLatin1String scheme,
                                                    QLatin1String form)
{
    const qsizetype schemeEnd = url.indexOf(QLatin1String("://"));
    if (schemeEnd < 0)
        return unexpected(QStringLiteral("not a URL (expected %1)").arg(form));
    const QString rest = url.mid(schemeEnd + 3);
    // Same rule as redis://: a raw '/', '?' or '#' in a password leaves its '@' in the path.
    const auto authority = urlAuthority(rest);
    if (!authority)
        return unexpected(authority.error());
    ServerListUrl out;
    const qsizetype at = authority->lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QString userinfo = authority->left(at);
        const qsizetype colon = userinfo.indexOf(QLatin1Char(':'));
        out.user =
            QUrl::fromPercentEncoding(userinfo.left(colon < 0 ? userinfo.size() : colon).toUtf8());
        if (colon >= 0)
            out.password = QUrl::fromPercentEncoding(userinfo.mid(colon + 1).toUtf8());
    }
    out.hosts = authority->mid(at + 1);
    out.path = rest.mid(authority->size());
    if (out.path.contains(QLatin1Char('?')) || out.path.contains(QLatin1Char('#')))
        return unexpected(QStringLiteral("%1:// takes no options after '?' or '#' (expected %2)")
                              .arg(scheme, form));
    return out;
}

QString redactSecrets(QString text)
{
    // Every credential the pattern redacts follows a "://"; most texts (the console redacts each
    // candidate's summary, 20,000 per report) have none, and need not run the regex at all.
    if (!text.contains(QLatin1String("://")))
        return text;
    // The forms quoted in error messages ("[[user]:password@]", "user[:password]@") name the
    // password as the word itself inside optional-part brackets: that is documentation, not a
    // secret, and masking it made the hint unreadable. A real URL has no ']' around its "@".
    static const QRegularExpression userinfo(
        QStringLiteral("([a-z][a-z0-9+.-]*://[^:/@\\s]*):(?!password\\]@|password@\\])[^@\\s]*@"));
    return text.replace(userinfo, QStringLiteral("\\1:***@"));
}

} // namespace reclaim
