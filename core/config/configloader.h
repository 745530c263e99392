// Reads and validates a Reclaim configuration file; every rejection names the key path at fault.
#pragma once

#include "config/reclaimconfig.h"
#include "util/expected.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>

namespace reclaim {

struct ConfigError
{
    QString origin;  // file name, or "<memory>"
    QString keyPath; // e.g. "domains[1].queues"; empty for file-level problems
    QString problem;

    QString toString() const;
};

class ConfigLoader final
{
public:
    // Connection URLs in the environment (RECLAIM_PG_URL, RECLAIM_REDIS_URL) override the file's.
    static Expected<ReclaimConfig, ConfigError>
    loadFile(const QString &path,
             const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    static Expected<ReclaimConfig, ConfigError>
    loadJson(const QByteArray &json, const QString &origin,
             const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
};

} // namespace reclaim
