#include "connectionprofile.h"

#include "config/configloader.h"
#include "config/connectionurl.h"
#include "settings.h"

#include <QFileInfo>

namespace reclaim::ui {

namespace {

const QString kPgEnv = QStringLiteral("RECLAIM_PG_URL");
const QString kRedisEnv = QStringLiteral("RECLAIM_REDIS_URL");

QString envPassword(const QProcessEnvironment &env, const QString &name, bool postgres)
{
    const QString url = env.value(name);
    if (url.isEmpty())
        return {};
    if (postgres) {
        const auto pg = parsePostgresUrl(url);
        return pg ? pg->password : QString();
    }
    const auto r = parseRedisUrl(url);
    return r ? r->password : QString();
}

QString source(const QString &typed, const QString &profileUrl, const QProcessEnvironment &env,
               const QString &envName, bool postgres)
{
    if (!typed.isEmpty())
        return QStringLiteral("typed in the profile dialog (kept in memory only)");
    if (!envPassword(env, envName, postgres).isEmpty())
        return QStringLiteral("from %1 in the environment").arg(envName);
    if (profileUrl.isEmpty())
        return QStringLiteral("from the configuration file's URL, if it has one");
    return QStringLiteral("none");
}

} // namespace

ConnectionProfile ConnectionProfile::fromSettings(const Settings &settings)
{
    ConnectionProfile p;
    p.configPath = settings.configPath();
    p.postgresUrl = settings.postgresUrl();
    p.redisUrl = settings.redisUrl();
    p.redisTlsCa = settings.redisTls(QStringLiteral("ca"));
    p.redisTlsCert = settings.redisTls(QStringLiteral("cert"));
    p.redisTlsKey = settings.redisTls(QStringLiteral("key"));
    p.redisTlsServerName = settings.redisTls(QStringLiteral("serverName"));
    return p;
}

void ConnectionProfile::save(Settings &settings) const
{
    settings.setConfigPath(configPath);
    settings.setPostgresUrl(postgresUrl);
    settings.setRedisUrl(redisUrl);
    settings.setRedisTls(QStringLiteral("ca"), redisTlsCa);
    settings.setRedisTls(QStringLiteral("cert"), redisTlsCert);
    settings.setRedisTls(QStringLiteral("key"), redisTlsKey);
    settings.setRedisTls(QStringLiteral("serverName"), redisTlsServerName);
    settings.sync();
}

Expected<ReclaimConfig, QString> loadProfile(const ConnectionProfile &profile,
                                             const QProcessEnvironment &env)
{
    if (profile.configPath.isEmpty())
        return unexpected(QStringLiteral(
            "No configuration file chosen. Open Connection > Profile and pick one."));
    if (!QFileInfo::exists(profile.configPath))
        return unexpected(
            QStringLiteral("The configuration file %1 does not exist.").arg(profile.configPath));
    auto config = ConfigLoader::loadFile(profile.configPath, env);
    if (!config)
        return unexpected(QStringLiteral("The configuration could not be loaded: %1")
                              .arg(redactSecrets(config.error().toString())));
    if (!profile.postgresUrl.isEmpty()) {
        auto pg = parsePostgresUrl(profile.postgresUrl);
        if (!pg)
            return unexpected(QStringLiteral("The PostgreSQL URL in the profile is not valid: %1")
                                  .arg(redactSecrets(pg.error())));
        // The profile's URL has no password (it is never stored); keep the environment's.
        pg->password = envPassword(env, kPgEnv, true);
        config->postgres = *pg;
    }
    const bool tlsFieldsSet = !profile.redisTlsCa.isEmpty() || !profile.redisTlsCert.isEmpty() ||
                              !profile.redisTlsKey.isEmpty() ||
                              !profile.redisTlsServerName.isEmpty();
    if (!profile.redisUrl.isEmpty()) {
        // The profile's URL is kept without its password: the user's comes from the dialog.
        auto r = parseRedisUrl(profile.redisUrl, RedisPassword::GivenApart);
        if (!r)
            return unexpected(QStringLiteral("The Redis URL in the profile is not valid: %1")
                                  .arg(redactSecrets(r.error())));
        r->password = envPassword(env, kRedisEnv, false);
        if (tlsFieldsSet && !r->tls.enabled)
            return unexpected(QStringLiteral(
                "The profile has TLS files or a server name, but its Redis URL is not rediss://."));
        r->tls.caFile = profile.redisTlsCa;
        r->tls.certFile = profile.redisTlsCert;
        r->tls.keyFile = profile.redisTlsKey;
        r->tls.serverName = profile.redisTlsServerName;
        if (r->tls.certFile.isEmpty() != r->tls.keyFile.isEmpty())
            return unexpected(QStringLiteral(
                "A Redis client certificate needs both its certificate and its key file."));
        const auto files = loadTlsFiles(r->tls);
        if (!files)
            return unexpected(QStringLiteral("The Redis TLS %1 file of the profile: %2")
                                  .arg(files.error().key, files.error().problem));
        config->redis = *r;
    } else if (tlsFieldsSet) {
        return unexpected(QStringLiteral("The profile has TLS files or a server name but no Redis "
                                         "URL: set a rediss:// URL, or clear them to use the "
                                         "configuration file's connections.redisTls."));
    }
    if (!profile.postgresPassword.isEmpty())
        config->postgres.password = profile.postgresPassword;
    if (!profile.redisPassword.isEmpty())
        config->redis.password = profile.redisPassword;
    if (!config->redis.user.isEmpty() && config->redis.password.isEmpty())
        return unexpected(
            QStringLiteral("The Redis URL names user '%1' but no Redis password was typed or "
                           "found in %2: type it (it is kept in memory only).")
                .arg(config->redis.user, kRedisEnv));
    return *config;
}

QString postgresPasswordSource(const ConnectionProfile &profile, const QProcessEnvironment &env)
{
    return source(profile.postgresPassword, profile.postgresUrl, env, kPgEnv, true);
}

QString redisPasswordSource(const ConnectionProfile &profile, const QProcessEnvironment &env)
{
    return source(profile.redisPassword, profile.redisUrl, env, kRedisEnv, false);
}

} // namespace reclaim::ui
