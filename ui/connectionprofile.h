// Where the console connects: a configuration file, optionally with its server URLs overridden.
// Passwords live only in memory (typed in the dialog) or come from the environment; they are
// never written to settings.
#pragma once

#include "config/reclaimconfig.h"
#include "util/expected.h"

#include <QProcessEnvironment>
#include <QString>

namespace reclaim::ui {

class Settings;

struct ConnectionProfile
{
    QString configPath;
    QString postgresUrl;      // without password; empty: the file's URL (or RECLAIM_PG_URL)
    QString redisUrl;         // without password; empty: the file's URL (or RECLAIM_REDIS_URL)
    QString postgresPassword; // memory only
    QString redisPassword;    // memory only
    // For a rediss:// profile URL (connections.redisTls of the file otherwise): file paths and
    // the name to verify, which are no secret and are remembered.
    QString redisTlsCa;
    QString redisTlsCert;
    QString redisTlsKey;
    QString redisTlsServerName;

    static ConnectionProfile fromSettings(const Settings &settings);
    void save(Settings &settings) const;
};

// The profile's configuration: the file (with RECLAIM_PG_URL / RECLAIM_REDIS_URL applied by the
// loader), then the profile's URLs, then its in-memory passwords. The error is operator-ready.
Expected<ReclaimConfig, QString>
loadProfile(const ConnectionProfile &profile,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

// Where each password comes from, in words the dialog and the status bar can show.
QString postgresPasswordSource(const ConnectionProfile &profile, const QProcessEnvironment &env);
QString redisPasswordSource(const ConnectionProfile &profile, const QProcessEnvironment &env);

} // namespace reclaim::ui
