// Parsed postgresql:// and redis:// URLs, with a redacted form that is the only one ever logged.
#pragma once

#include "config/clusterspec.h"
#include "config/redistls.h"
#include "config/sentinelspec.h"
#include "util/expected.h"

#include <QString>
#include <optional>

namespace reclaim {

struct PostgresEndpoint
{
    QString host;
    int port = 5432;
    QString user;
    QString password;
    QString database;
    QString options; // connect options such as sslmode, in QPSQL's "k='v';k='v'" form

    // A host that is a directory is libpq's Unix socket directory (?host=/run/postgresql).
    bool isSocket() const { return host.startsWith(QLatin1Char('/')); }

    // The URL with the password replaced by "***": safe for logs and error messages.
    QString redacted() const;
};

struct RedisEndpoint
{
    QString host;
    int port = 6379;
    QString user; // an ACL user; empty: the default user (AUTH with the password alone)
    QString password;
    int database = 0;
    QString socketPath; // unix:///path: a Unix socket instead of host and port
    RedisTls tls;       // rediss://; the files come from connections.redisTls
    // Set for redis+sentinel://: host and port are then the master the sentinels name, asked
    // anew on every connection (redis/masterlocator.h).
    std::optional<SentinelSpec> sentinel;
    // Set for redis+cluster://: host and port are then the first seed node's; a connection
    // asks the seeds for the slot map and talks to each slot's master (redis/clusterclient.h).
    std::optional<ClusterSpec> cluster;

    bool isSocket() const { return !socketPath.isEmpty(); }
    // The server as logs and errors name it: "host:port", "host:port (TLS)" or "unix socket /p".
    QString serverName() const;
    QString redacted() const;
};

Expected<PostgresEndpoint, QString> parsePostgresUrl(const QString &url);
// Whether a URL that names an ACL user must carry its password: a configuration's must (else
// the connection would silently be the default user's); the console's profile keeps its URL
// without the password, which the operator types apart, and checks the pair itself.
enum class RedisPassword
{
    InUrl,
    GivenApart
};
Expected<RedisEndpoint, QString> parseRedisUrl(const QString &url,
                                               RedisPassword password = RedisPassword::InUrl);

// The authority of a URL ("user:pass@host:port") from the text after its "scheme://", or why
// it cannot be told: a '/', '?' or '#' written raw in a password ends the authority early and
// leaves the rest of the password, and its '@', in the path. The error never quotes the text.
Expected<QString, QString> urlAuthority(const QString &afterScheme);

// A URL that lists several servers ("scheme://user:pass@h1:1,h2:2/path"), split: the user and
// password percent-decoded, the hosts as written, and the path after them. The URL is refused
// when it is not one, when its password ends the authority early (urlAuthority), or when it has
// options after '?' or '#', which `scheme` takes none of; no message quotes the text.
struct ServerListUrl
{
    QString user;
    QString password;
    QString hosts;
    QString path; // "" or "/..."
};
Expected<ServerListUrl, QString> splitServerListUrl(const QString &url, QLatin1String scheme,
                                                    QLatin1String form);

// Replaces the password of any URL-looking userinfo in text with "***".
QString redactSecrets(QString text);

} // namespace reclaim
