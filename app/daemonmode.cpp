#include "daemonmode.h"

#include "config/configloader.h"
#include "daemon/daemonloop.h"
#include "daemon/healthserver.h"
#include "daemon/signalwatcher.h"
#include "exitcodes.h"
#include "logging/logger.h"
#include "metrics/metricsregistry.h"
#include "service/checkrunner.h"

#include <QCoreApplication>
#include <QTextStream>
#include <memory>
#include <unistd.h>

namespace reclaim {

namespace {

QString hostPort(const QHostAddress &host, quint16 port)
{
    const QString h = host.protocol() == QAbstractSocket::IPv6Protocol
                          ? QStringLiteral("[%1]").arg(host.toString())
                          : host.toString();
    return QStringLiteral("%1:%2").arg(h).arg(port);
}

struct LogShutdown
{
    ~LogShutdown() { logging::shutdown(); }
};

} // namespace

namespace {

// libpq prints server NOTICEs ("relation ... already exists, skipping") straight to stderr,
// past our logger, which would break one-JSON-object-per-line. Ask the server not to send
// them. (A server WARNING would still reach stderr raw; errors arrive as query errors.)
void quietPostgresNotices()
{
    QByteArray options = qgetenv("PGOPTIONS");
    if (!options.contains("client_min_messages"))
        qputenv("PGOPTIONS", (options + " -c client_min_messages=warning").trimmed());
}

} // namespace

int runDaemon(int argc, char **argv, const CommandLine &cmd)
{
    quietPostgresNotices();
    QCoreApplication app(argc, argv);
    const CheckThreadsJoin joinChecks; // after the loop's check runner is gone, before `app`
    QCoreApplication::setApplicationName(QStringLiteral("reclaim"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RECLAIM_VERSION));

    LogSettings logSettings;
    logSettings.format = cmd.logFormat == QLatin1String("json") ? LogFormat::Json : LogFormat::Text;
    logSettings.file = cmd.logFile;
    if (const auto error = logging::init(logSettings)) {
        QTextStream(stderr) << "reclaim: " << *error << "\n";
        return exitcode::Usage;
    }
    const LogShutdown flushLogAtExit;

    // First, so a SIGTERM that arrives during start-up waits in the pipe instead of killing us.
    SignalWatcher watcher;
    if (!watcher.error().isEmpty()) {
        logging::write(LogLevel::Error,
                       QStringLiteral("cannot install signal handlers: %1").arg(watcher.error()),
                       {{QStringLiteral("event"), QStringLiteral("startup-failed")}});
        return exitcode::RunFailed;
    }

    auto config = ConfigLoader::loadFile(cmd.configPath);
    if (!config) {
        logging::write(LogLevel::Error,
                       QStringLiteral("configuration error: %1").arg(config.error().toString()),
                       {{QStringLiteral("event"), QStringLiteral("config-invalid")},
                        {QStringLiteral("config"), cmd.configPath}});
        return exitcode::ConfigError;
    }

    MetricsRegistry metrics;
    DaemonLoop::Options options{cmd.configPath, cmd.dryRun, cmd.intervalSeconds};
    DaemonLoop loop(*config, options, metrics);

    std::unique_ptr<HealthServer> http;
    const ListenAddress address = parseListenAddress(cmd.metricsAddress).value_or(ListenAddress{});
    QString served = QStringLiteral("off");
    if (address.enabled) {
        http = std::make_unique<HealthServer>([&metrics] { return metrics.exposition(); },
                                              [&loop] { return loop.readiness(); });
        QString error;
        const auto port = http->listen(address.host, address.port, &error);
        if (!port) {
            logging::write(
                LogLevel::Error,
                QStringLiteral(
                    "cannot serve metrics on %1: %2 (choose another --metrics-address, or 'off')")
                    .arg(hostPort(address.host, address.port), error),
                {{QStringLiteral("event"), QStringLiteral("startup-failed")}});
            return exitcode::ServeFailed;
        }
        served = hostPort(address.host, *port);
    }

    logging::write(
        LogLevel::Info,
        QStringLiteral("reclaim %1 daemon started").arg(QStringLiteral(RECLAIM_VERSION)),
        {{QStringLiteral("event"), QStringLiteral("started")},
         {QStringLiteral("pid"), static_cast<qint64>(::getpid())},
         {QStringLiteral("config"), cmd.configPath},
         {QStringLiteral("policy"), policyName(config->run.policy)},
         {QStringLiteral("dryRun"), cmd.dryRun},
         {QStringLiteral("intervalSeconds"), static_cast<qint64>(loop.interval().count())},
         {QStringLiteral("domains"), static_cast<int>(config->domains.size())},
         {QStringLiteral("postgres"), config->postgres.redacted()},
         {QStringLiteral("redis"), config->redis.redacted()},
         {QStringLiteral("metrics"), served}});

    QObject::connect(&watcher, &SignalWatcher::terminateRequested, &loop,
                     [&loop](int signo) { loop.stop(SignalWatcher::signalName(signo)); });
    QObject::connect(&watcher, &SignalWatcher::reloadRequested, &loop, [&loop] {
        logging::write(LogLevel::Info, QStringLiteral("SIGHUP: reloading the configuration"),
                       {{QStringLiteral("event"), QStringLiteral("config-reload")}});
        loop.reload();
    });
    QObject::connect(&loop, &DaemonLoop::stopped, &app, &QCoreApplication::quit,
                     Qt::QueuedConnection);

    loop.start();
    app.exec();
    http.reset();
    logging::write(LogLevel::Info, QStringLiteral("stopped"),
                   {{QStringLiteral("event"), QStringLiteral("stopped")}});
    return exitcode::Ran;
}

} // namespace reclaim
