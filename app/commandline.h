// The command line, parsed before any QCoreApplication/QApplication exists.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace reclaim {

struct CommandLine
{
    enum class Mode { Console, Daemon, Once, Version, Help };
    Mode mode = Mode::Console;
    QString configPath;
    bool dryRun = false;
    bool json = false;
    std::optional<int> intervalSeconds;
    QString logFormat = QStringLiteral("text"); // text | json
    QString logFile;
    QString metricsAddress; // host:port for the daemon's /metrics, /healthz, /readyz
    bool readOnly = false;
    QString screenshotPath; // console: render once to this PNG and exit (tests, docs)
};

struct CommandLineResult
{
    std::optional<CommandLine> options;
    QString error; // set when options is empty
    QString helpText;
};

CommandLineResult parseCommandLine(const QStringList &arguments);

// Where the configuration comes from when --config is not given.
QString defaultConfigPath();

} // namespace reclaim
