#include "logging/logger.h"

#include "config/connectionurl.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace reclaim::logging {

namespace {

constexpr std::size_t kRotateBytes = 10 * 1024 * 1024;
constexpr std::size_t kRotateFiles = 5;

std::mutex g_mutex;
std::shared_ptr<spdlog::logger> g_logger;
LogFormat g_format = LogFormat::Text;

spdlog::level::level_enum toSpdlog(LogLevel level)
{
    switch (level) {
    case LogLevel::Debug:
        return spdlog::level::debug;
    case LogLevel::Info:
        return spdlog::level::info;
    case LogLevel::Warn:
        return spdlog::level::warn;
    case LogLevel::Error:
        return spdlog::level::err;
    }
    return spdlog::level::info;
}

// systemd sets JOURNAL_STREAM to "<device>:<inode>" of the stream it connected; only when
// stderr still is that stream do "<N>" priority prefixes reach journald as levels.
bool stderrIsJournal()
{
    const char *value = std::getenv("JOURNAL_STREAM");
    if (!value)
        return false;
    unsigned long long dev = 0;
    unsigned long long ino = 0;
    if (std::sscanf(value, "%llu:%llu", &dev, &ino) != 2)
        return false;
    struct stat st = {};
    if (fstat(STDERR_FILENO, &st) != 0)
        return false;
    return static_cast<unsigned long long>(st.st_dev) == dev &&
           static_cast<unsigned long long>(st.st_ino) == ino;
}

// "%J": the syslog priority journald reads from a "<N>" line prefix.
class JournalPriorityFlag final : public spdlog::custom_flag_formatter
{
public:
    void format(const spdlog::details::log_msg &msg, const std::tm &,
                spdlog::memory_buf_t &dest) override
    {
        int priority = 6;
        switch (msg.level) {
        case spdlog::level::trace:
        case spdlog::level::debug:
            priority = 7;
            break;
        case spdlog::level::info:
            priority = 6;
            break;
        case spdlog::level::warn:
            priority = 4;
            break;
        case spdlog::level::err:
            priority = 3;
            break;
        case spdlog::level::critical:
            priority = 2;
            break;
        default:
            break;
        }
        const char text[] = {'<', static_cast<char>('0' + priority), '>'};
        dest.append(text, text + 3);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override
    {
        return std::make_unique<JournalPriorityFlag>();
    }
};

std::unique_ptr<spdlog::formatter> formatterFor(LogFormat format, bool journal)
{
    // JSON lines carry their own time and level; text lines get them from the pattern.
    std::string pattern = "%v";
    if (format == LogFormat::Text)
        pattern = journal ? "%J%l %v" : "%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v";
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<JournalPriorityFlag>('J');
    f->set_pattern(pattern);
    return f;
}

QJsonValue redacted(const QJsonValue &value)
{
    if (value.isString())
        return redactSecrets(value.toString());
    if (value.isObject()) {
        QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            it.value() = redacted(it.value());
        return o;
    }
    if (value.isArray()) {
        QJsonArray a;
        for (const QJsonValue &v : value.toArray())
            a.append(redacted(v));
        return a;
    }
    return value;
}

QString textValue(const QJsonValue &value)
{
    if (value.isString()) {
        static const QRegularExpression needsQuotes(QStringLiteral("[\\s\"=]"));
        const QString s = value.toString();
        if (!s.isEmpty() && !s.contains(needsQuotes))
            return s;
        QString quoted = s;
        quoted.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
            .replace(QLatin1Char('"'), QLatin1String("\\\""));
        quoted.replace(QLatin1Char('\n'), QLatin1String("\\n"))
            .replace(QLatin1Char('\t'), QLatin1String("\\t"));
        quoted.replace(QLatin1Char('\r'), QLatin1String("\\r"));
        return QLatin1Char('"') + quoted + QLatin1Char('"');
    }
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d == static_cast<double>(static_cast<qint64>(d)))
            return QString::number(static_cast<qint64>(d));
        return QString::number(d, 'g', QLocale::FloatingPointShortest);
    }
    if (value.isNull() || value.isUndefined())
        return QStringLiteral("-");
    const QJsonDocument doc =
        value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    return QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
}

// Nested objects print as "parent.child=value", so a text line stays one flat list of pairs.
void appendText(QString &out, const QString &key, const QJsonValue &value)
{
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            appendText(out, key + QLatin1Char('.') + it.key(), it.value());
        return;
    }
    out += QLatin1Char(' ') + key + QLatin1Char('=') + textValue(value);
}

void qtMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    LogLevel level = LogLevel::Info;
    switch (type) {
    case QtDebugMsg:
        level = LogLevel::Debug;
        break;
    case QtInfoMsg:
        level = LogLevel::Info;
        break;
    case QtWarningMsg:
        level = LogLevel::Warn;
        break;
    case QtCriticalMsg:
    case QtFatalMsg:
        level = LogLevel::Error;
        break;
    }
    LogFields fields{{QStringLiteral("event"), QStringLiteral("qt")}};
    if (context.category && qstrcmp(context.category, "default") != 0)
        fields.append({QStringLiteral("category"), QString::fromUtf8(context.category)});
    write(level, message, fields);
}

} // namespace

QString levelName(LogLevel level)
{
    switch (level) {
    case LogLevel::Debug:
        return QStringLiteral("debug");
    case LogLevel::Info:
        return QStringLiteral("info");
    case LogLevel::Warn:
        return QStringLiteral("warning");
    case LogLevel::Error:
        return QStringLiteral("error");
    }
    return {};
}

QString renderText(const QString &message, const LogFields &fields)
{
    // One event, one line: a multi-line message (a driver's error text) is folded.
    static const QRegularExpression lineBreaks(QStringLiteral("\\s*[\\r\\n]+\\s*"));
    QString out = message;
    out.replace(lineBreaks, QStringLiteral(" "));
    for (const auto &[key, value] : fields)
        appendText(out, key, value);
    return redactSecrets(out);
}

QByteArray renderJson(LogLevel level, const QDateTime &time, const QString &message,
                      const LogFields &fields)
{
    QJsonObject o;
    for (const auto &[key, value] : fields)
        o.insert(key, redacted(value));
    // Written last so that no field can overwrite them.
    o.insert(QStringLiteral("time"), time.toUTC().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("level"), levelName(level));
    o.insert(QStringLiteral("msg"), redactSecrets(message));
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<QString> init(const LogSettings &settings)
{
    std::vector<spdlog::sink_ptr> sinks;
    // Colours only on a terminal (the sink checks isatty), never into journald or a pipe.
    auto console =
        std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>(spdlog::color_mode::automatic);
    console->set_formatter(
        formatterFor(settings.format, settings.format == LogFormat::Text && stderrIsJournal()));
    sinks.push_back(console);
    if (!settings.file.isEmpty()) {
        try {
            auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
                settings.file.toStdString(), kRotateBytes, kRotateFiles);
            file->set_formatter(formatterFor(settings.format, false));
            sinks.push_back(file);
        } catch (const spdlog::spdlog_ex &e) {
            return QStringLiteral("cannot open the log file %1: %2")
                .arg(settings.file, QString::fromUtf8(e.what()));
        }
    }
    auto logger = std::make_shared<spdlog::logger>("reclaim", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::trace); // one line per event: flush each, lose none on a crash
    {
        const std::lock_guard lock(g_mutex);
        g_logger = std::move(logger);
        g_format = settings.format;
    }
    qInstallMessageHandler(qtMessage);
    return std::nullopt;
}

void shutdown()
{
    qInstallMessageHandler(nullptr);
    const std::lock_guard lock(g_mutex);
    if (g_logger)
        g_logger->flush();
    g_logger.reset();
}

void write(LogLevel level, const QString &message, const LogFields &fields)
{
    std::shared_ptr<spdlog::logger> logger;
    LogFormat format = LogFormat::Text;
    {
        const std::lock_guard lock(g_mutex);
        logger = g_logger;
        format = g_format;
    }
    if (!logger || !logger->should_log(toSpdlog(level)))
        return;
    const QByteArray line =
        format == LogFormat::Json
            ? renderJson(level, QDateTime::currentDateTimeUtc(), message, fields)
            : renderText(message, fields).toUtf8();
    logger->log(toSpdlog(level),
                spdlog::string_view_t(line.constData(), static_cast<size_t>(line.size())));
}

} // namespace reclaim::logging
