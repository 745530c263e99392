#include "commandline.h"

#include "config/reclaimconfig.h"
#include "exitcodes.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace reclaim {

namespace {

const char *const kExamples = R"(
Examples:
  reclaim --config /etc/reclaim/reclaim.json            open the operator console
  reclaim --once --dry-run --config reclaim.json        plan one run, change nothing
  reclaim --once --json --config reclaim.json           one run, report as JSON on stdout
  reclaim --check --config reclaim.json                 preflight: what will go wrong, and the fix
  reclaim --daemon --config /etc/reclaim/reclaim.json   headless: run now, then every interval
  reclaim --held                                        what waits for an operator, by domain
  reclaim --approve 41 42                               check again and run held actions 41, 42
  reclaim --approve --domain image --kind requeue       ... every held requeue of a domain
  reclaim --reject 43 --reason "app bug, fixing"        say no: not offered again while unchanged
  reclaim --daemon --log-format json --metrics-address 127.0.0.1:9477
                                                        same, one JSON object per log line

Connections: RECLAIM_PG_URL (postgresql://user:pass@host:port/db) and RECLAIM_REDIS_URL
(redis://[:pass@]host:port/db) override the file's connections.postgresUrl / redisUrl.

Exit codes (--once):
  0  the run completed (UNKNOWN candidates are reported, not an error)
  1  bad command line
  2  configuration missing or invalid
  3  skipped: another runner holds the lock
  4  skipped: Redis unreachable
  5  PostgreSQL unreachable, the run could not proceed, or its report could not be written
  7  the run completed, but a domain's candidates could not be read
  10 the run completed, but actions wait for an operator (policy approve, or the guard)

Exit codes (--held, --approve, --reject): 0 done (every named action executed, or rejected),
11 some were not (superseded, held again, already taken, no such id: each named on stderr),
5 PostgreSQL unreachable, 1 bad command line, 2 configuration missing or invalid.

Exit codes (--check): 0 every item passed, 8 warnings only, 9 at least one item failed or
could not be checked, 2 configuration missing or invalid.

Daemon (--daemon): runs until SIGTERM/SIGINT (then exits 0 once the run in flight has
finished its current action and released the lock); SIGHUP reloads the configuration file
(a file that does not validate is refused and the running configuration stays). A run that
is skipped or fails is logged and retried at the next interval; the process keeps running.
Exit codes: 0 stopped by a signal, 1 bad command line, 2 configuration missing or invalid at
start, 6 the metrics address could not be served (for example the port is in use).
)";

// The ids, --domain, --kind and --reason of --approve and --reject; an error message, or empty.
QString readHeldSelection(const QCommandLineParser &p, CommandLine &c,
                          const QCommandLineOption &domain, const QCommandLineOption &kind,
                          const QCommandLineOption &reason)
{
    const bool approving = c.mode == CommandLine::Mode::Approve;
    const bool rejecting = c.mode == CommandLine::Mode::Reject;
    if (p.isSet(domain) && !approving)
        return QStringLiteral("--domain only applies to --approve");
    if (p.isSet(kind) && !p.isSet(domain))
        return QStringLiteral("--kind only applies to --approve --domain");
    if (p.isSet(reason) && !rejecting)
        return QStringLiteral("--reason only applies to --reject");
    for (const QString &text : p.positionalArguments()) {
        bool ok = false;
        const qint64 id = text.toLongLong(&ok);
        if (!ok || id <= 0)
            return QStringLiteral("'%1' is not a held action id (a positive whole number, as "
                                  "reclaim --held lists them)")
                .arg(text);
        c.heldIds << id;
    }
    c.domain = p.value(domain);
    c.kind = p.value(kind);
    c.reason = p.value(reason);
    if (p.isSet(kind) && c.kind != QLatin1String("requeue") && c.kind != QLatin1String("fail"))
        return QStringLiteral("--kind must be 'requeue' or 'fail', not '%1'").arg(c.kind);
    if (approving && c.heldIds.isEmpty() == c.domain.isEmpty())
        return QStringLiteral("--approve takes held action ids or --domain NAME (one of the two)");
    if (rejecting && c.heldIds.isEmpty())
        return QStringLiteral("--reject takes the ids of the held actions to reject");
    return {};
}

} // namespace

std::optional<ListenAddress> parseListenAddress(const QString &text)
{
    ListenAddress a;
    if (text == QLatin1String("off")) {
        a.enabled = false;
        return a;
    }
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return std::nullopt;
    bool ok = false;
    const uint port = text.mid(colon + 1).toUInt(&ok);
    if (!ok || port > 65535)
        return std::nullopt;
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    else if (host.contains(QLatin1Char(':')))
        return std::nullopt; // an IPv6 address needs brackets, or its port is ambiguous
    if (host == QLatin1String("localhost"))
        a.host = QHostAddress(QHostAddress::LocalHost);
    else if (!a.host.setAddress(host))
        return std::nullopt;
    a.port = static_cast<quint16>(port);
    return a;
}

QString defaultConfigPath()
{
    const QString fromEnv =
        QProcessEnvironment::systemEnvironment().value(QStringLiteral("RECLAIM_CONFIG"));
    if (!fromEnv.isEmpty())
        return fromEnv;
    if (QFileInfo::exists(QStringLiteral("/etc/reclaim/reclaim.json")))
        return QStringLiteral("/etc/reclaim/reclaim.json");
    return QStringLiteral("reclaim.json");
}

CommandLineResult parseCommandLine(const QStringList &arguments)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral(
            "Reclaim finds background jobs whose PostgreSQL row is stuck in PROCESSING or "
            "QUEUED while their BullMQ queue entry is gone, and recovers them.") +
        QString::fromUtf8(kExamples));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help."));
    const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                     QStringLiteral("Show the version."));
    const QCommandLineOption config({QStringLiteral("c"), QStringLiteral("config")},
                                    QStringLiteral("Configuration file (default: $RECLAIM_CONFIG, "
                                                   "/etc/reclaim/reclaim.json, ./reclaim.json)."),
                                    QStringLiteral("file"));
    const QCommandLineOption daemon(
        QStringLiteral("daemon"), QStringLiteral("Run headless: a run now, then every interval."));
    const QCommandLineOption once(QStringLiteral("once"),
                                  QStringLiteral("One headless run, print the report, exit."));
    const QCommandLineOption check(
        QStringLiteral("check"),
        QStringLiteral("Preflight: check the configuration, servers, queues and lock; exit."));
    const QCommandLineOption dryRun(
        QStringLiteral("dry-run"),
        QStringLiteral("Plan only: write nothing to Redis or PostgreSQL."));
    const QCommandLineOption json(
        QStringLiteral("json"),
        QStringLiteral("With --once or --check: print the report as JSON."));
    const QCommandLineOption interval(
        QStringLiteral("interval"),
        QStringLiteral("Seconds between runs, %1 to %2 (overrides run.intervalSeconds).")
            .arg(RunSettings::kMinIntervalSeconds)
            .arg(RunSettings::kMaxIntervalSeconds),
        QStringLiteral("seconds"));
    const QCommandLineOption logFormat(QStringLiteral("log-format"),
                                       QStringLiteral("Log lines as 'text' (default) or 'json'."),
                                       QStringLiteral("format"), QStringLiteral("text"));
    const QCommandLineOption logFile(QStringLiteral("log-file"),
                                     QStringLiteral("Also log to this rotating file."),
                                     QStringLiteral("file"));
    const QCommandLineOption metrics(
        QStringLiteral("metrics-address"),
        QStringLiteral("Daemon: serve /metrics, /healthz, /readyz here "
                       "(default 127.0.0.1:9477; 'off' to disable)."),
        QStringLiteral("host:port"));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QStringLiteral("Console: show everything, write nothing."));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Console: run once, render the window to this PNG, exit."),
        QStringLiteral("png"));
    const QCommandLineOption held(QStringLiteral("held"),
                                  QStringLiteral("List the actions held for an operator."));
    const QCommandLineOption approve(
        QStringLiteral("approve"),
        QStringLiteral("Approve held actions (ids as arguments, or --domain): each is checked "
                       "again and run."));
    const QCommandLineOption reject(
        QStringLiteral("reject"),
        QStringLiteral("Reject held actions (ids as arguments): not offered again while their "
                       "row is unchanged."));
    const QCommandLineOption domain(QStringLiteral("domain"),
                                    QStringLiteral("With --approve: every held action of it."),
                                    QStringLiteral("name"));
    const QCommandLineOption kind(QStringLiteral("kind"),
                                  QStringLiteral("With --approve --domain: only 'requeue' or "
                                                 "'fail' actions."),
                                  QStringLiteral("kind"));
    const QCommandLineOption reason(QStringLiteral("reason"),
                                    QStringLiteral("With --reject: why, kept with the rejection."),
                                    QStringLiteral("text"));
    p.addOptions({help, version,  config,    daemon,  once,    check,    dryRun,
                  json, interval, logFormat, logFile, metrics, readOnly, screenshot,
                  held, approve,  reject,    domain,  kind,    reason});
    p.addPositionalArgument(QStringLiteral("ids"),
                            QStringLiteral("With --approve or --reject: held action ids."),
                            QStringLiteral("[ID…]"));

    CommandLineResult result;
    result.helpText = p.helpText();
    if (!p.parse(arguments)) {
        result.error = p.errorText();
        return result;
    }
    const bool takesIds = p.isSet(approve) || p.isSet(reject);
    if (!p.positionalArguments().isEmpty() && !takesIds) {
        result.error =
            QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().first());
        return result;
    }
    CommandLine c;
    const int modes = int(p.isSet(daemon)) + int(p.isSet(once)) + int(p.isSet(check)) +
                      int(p.isSet(held)) + int(p.isSet(approve)) + int(p.isSet(reject));
    if (p.isSet(help))
        c.mode = CommandLine::Mode::Help;
    else if (p.isSet(version))
        c.mode = CommandLine::Mode::Version;
    else if (modes > 1) {
        result.error = QStringLiteral(
            "--daemon, --once, --check, --held, --approve and --reject cannot be combined");
        return result;
    } else if (p.isSet(held))
        c.mode = CommandLine::Mode::Held;
    else if (p.isSet(approve))
        c.mode = CommandLine::Mode::Approve;
    else if (p.isSet(reject))
        c.mode = CommandLine::Mode::Reject;
    else if (p.isSet(check))
        c.mode = CommandLine::Mode::Check;
    else if (p.isSet(daemon))
        c.mode = CommandLine::Mode::Daemon;
    else if (p.isSet(once))
        c.mode = CommandLine::Mode::Once;
    c.configPath = p.isSet(config) ? p.value(config) : defaultConfigPath();
    c.dryRun = p.isSet(dryRun);
    c.json = p.isSet(json);
    if (p.isSet(interval)) {
        // The same range as run.intervalSeconds: 0, negative, fractional, non-numeric and
        // too-large values (which would overflow the daemon's millisecond timer) are refused.
        bool ok = false;
        const qint64 s = p.value(interval).toLongLong(&ok);
        if (!ok || s < RunSettings::kMinIntervalSeconds || s > RunSettings::kMaxIntervalSeconds) {
            result.error = QStringLiteral("--interval must be a whole number of seconds from %1 "
                                          "to %2, not '%3'")
                               .arg(RunSettings::kMinIntervalSeconds)
                               .arg(RunSettings::kMaxIntervalSeconds)
                               .arg(p.value(interval));
            return result;
        }
        c.intervalSeconds = static_cast<int>(s);
    }
    c.logFormat = p.value(logFormat);
    if (c.logFormat != QLatin1String("text") && c.logFormat != QLatin1String("json")) {
        result.error = QStringLiteral("--log-format must be 'text' or 'json'");
        return result;
    }
    c.logFile = p.value(logFile);
    c.metricsAddress = p.isSet(metrics) ? p.value(metrics) : QStringLiteral("127.0.0.1:9477");
    if (!parseListenAddress(c.metricsAddress)) {
        result.error = QStringLiteral(
            "--metrics-address must be host:port (for example 127.0.0.1:9477) or 'off'");
        return result;
    }
    c.readOnly = p.isSet(readOnly);
    c.screenshotPath = p.value(screenshot);
    if (c.json && c.mode != CommandLine::Mode::Once && c.mode != CommandLine::Mode::Check &&
        c.mode != CommandLine::Mode::Held && c.mode != CommandLine::Mode::Approve &&
        c.mode != CommandLine::Mode::Reject) {
        result.error = QStringLiteral(
            "--json only applies to --once, --check, --held, --approve and --reject");
        return result;
    }
    if (const QString problem = readHeldSelection(p, c, domain, kind, reason); !problem.isEmpty()) {
        result.error = problem;
        return result;
    }
    result.options = c;
    return result;
}

} // namespace reclaim
