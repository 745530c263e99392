// The daemon's log: one line per event, human-readable or JSON, secrets redacted, via spdlog.
#pragma once

#include <QDateTime>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>
#include <optional>

namespace reclaim {

enum class LogLevel
{
    Debug,
    Info,
    Warn,
    Error
};
enum class LogFormat
{
    Text,
    Json
};

// Ordered key/value pairs: text lines keep this order; JSON objects carry the same keys.
using LogFields = QList<QPair<QString, QJsonValue>>;

struct LogSettings
{
    LogFormat format = LogFormat::Text;
    QString file; // empty: stderr only; otherwise also a rotating file
};

namespace logging {

// Sets up the sinks and routes Qt's own messages (qWarning ...) through the same log.
// Returns why the log could not be set up (for example the file cannot be opened).
std::optional<QString> init(const LogSettings &settings);
// Flushes and drops the sinks; later calls to write() go nowhere.
void shutdown();

void write(LogLevel level, const QString &message, const LogFields &fields = {});

// The pure halves of write(), for tests. Every string passes through redactSecrets().
QString renderText(const QString &message, const LogFields &fields);
QByteArray renderJson(LogLevel level, const QDateTime &time, const QString &message,
                      const LogFields &fields);
QString levelName(LogLevel level);

} // namespace logging

} // namespace reclaim
