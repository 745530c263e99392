// The command line, parsed before any QCoreApplication/QApplication exists.
#pragma once

#include <QHostAddress>
#include <QString>
#include <QStringList>
#include <optional>

namespace reclaim {

struct CommandLine
{
    enum class Mode
    {
        Console,
        Daemon,
        Once,
        Check,
        Held,    // --held: list what waits for an operator
        Approve, // --approve ID… | --approve --domain D [--kind K]
        Reject,  // --reject ID… [--reason TEXT]
        Version,
        Help
    };
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
    // --approve / --reject: the held actions named by id, or (--approve) every held action of
    // `domain`, of `kind` ("requeue" or "fail") when given.
    QList<qint64> heldIds;
    QString domain;
    QString kind;
    QString reason; // --reject: why, recorded with the rejection
};

// Where the daemon serves /metrics, /healthz and /readyz; `enabled` false for "off".
struct ListenAddress
{
    bool enabled = true;
    QHostAddress host;
    quint16 port = 0; // 0: any free port (the daemon logs the one it got)
};

// "host:port", "[v6]:port", "localhost:port" or "off"; empty when the text is none of those.
std::optional<ListenAddress> parseListenAddress(const QString &text);

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
