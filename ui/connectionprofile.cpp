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
    return p;
}

void ConnectionProfile::save(Settings &settings) const
{
    settings.setConfigPath(configPath);
    settings.setPostgresUrl(postgresUrl);
    settings.setRedisUrl(redisUrl);
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
    if (!profile.redisUrl.isEmpty()) {
        auto r = parseRedisUrl(profile.redisUrl);
        if (!r)
            return unexpected(QStringLiteral("The Redis URL in the profile is not valid: %1")
                                  .arg(redactSecrets(r.error())));
        r->password = envPassword(env, kRedisEnv, false);
        config->redis = *r;
    }
    if (!profile.postgresPassword.isEmpty())
        config->postgres.password = profile.postgresPassword;
    if (!profile.redisPassword.isEmpty())
        config->redis.password = profile.redisPassword;
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
