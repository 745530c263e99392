// Parsed postgresql:// and redis:// URLs, with a redacted form that is the only one ever logged.
#pragma once

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
    QString user;
    QString password;
    int database = 0;
    // Set for redis+sentinel://: host and port are then the master the sentinels name, asked
    // anew on every connection (redis/masterlocator.h).
    std::optional<SentinelSpec> sentinel;

    QString redacted() const;
};

Expected<PostgresEndpoint, QString> parsePostgresUrl(const QString &url);
Expected<RedisEndpoint, QString> parseRedisUrl(const QString &url);

// Replaces the password of any URL-looking userinfo in text with "***".
QString redactSecrets(QString text);

} // namespace reclaim
