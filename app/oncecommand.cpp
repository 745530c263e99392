#include "oncecommand.h"

#include "config/configloader.h"
#include "exitcodes.h"
#include "reportprinter.h"
#include "service/engine.h"

#include <QFile>
#include <QHostInfo>
#include <QProcessEnvironment>
#include <QTextStream>

namespace reclaim {

int runOnce(const CommandLine &cmd)
{
    QTextStream err(stderr);
    auto config = ConfigLoader::loadFile(cmd.configPath);
    if (!config) {
        err << "reclaim: configuration error: " << config.error().toString() << "\n";
        return exitcode::ConfigError;
    }
    // Repeated on every run while it holds: verification off must never be forgotten.
    const QString insecure = config->redis.tls.insecureWarning(config->redis.serverName());
    if (!insecure.isEmpty())
        err << "reclaim: warning: " << insecure << "\n";
    err.flush();
    Engine engine(*config);
    RunRequest request;
    request.trigger = QStringLiteral("once");
    request.dryRun = cmd.dryRun;
    // Each action's policy decides whether it runs (domains[].policy); a dry run runs nothing.
    request.executeActions = !cmd.dryRun;
    request.actor = Actor{QStringLiteral("once"),
                          QHostInfo::localHostName(),
                          QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER")),
                          {}};
    const RunReport report = engine.run(request);
    // A report that could not be written whole (stdout on a full disk) is not a success, whatever
    // the run did: a pipeline gating on the exit code would read a cut document as the run's.
    QString unwritten;
    if (cmd.json) {
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly)) {
            unwritten = out.errorString();
        } else {
            report.writeJson(out); // streamed: a large run's report is never held whole as JSON
            if (!out.flush() || out.error() != QFileDevice::NoError)
                unwritten = out.errorString();
        }
    } else {
        QTextStream out(stdout);
        printReport(report, out);
        out.flush();
        if (out.status() != QTextStream::Ok)
            unwritten = QStringLiteral("the write failed");
    }
    if (report.outcome != RunReport::Outcome::Completed)
        err << "reclaim: run " << report.runId << " " << RunReport::outcomeName(report.outcome)
            << ": " << report.outcomeDetail << "\n";
    else if (!report.unreadDomains().isEmpty())
        err << "reclaim: run " << report.runId << " completed, but the candidates of "
            << report.unreadDomains().join(QStringLiteral(", ")) << " could not be read\n";
    for (const DomainReport &d : report.domains) {
        if (!d.heldReason.isEmpty()) {
            err << "reclaim: run " << report.runId << ": nothing of " << d.name
                << " executed: " << d.heldReason << "\n";
            continue;
        }
        qsizetype held = 0;
        for (const Action &a : report.actions)
            held += a.domain == d.name && a.isHeld() ? 1 : 0;
        if (held > 0)
            err << "reclaim: run " << report.runId << ": " << held << " action"
                << (held == 1 ? "" : "s") << " of " << d.name
                << " wait for an operator's approval (policy approve)\n";
    }
    if (!unwritten.isEmpty()) {
        err << "reclaim: run " << report.runId << ": its report could not be written to stdout ("
            << unwritten << "); what the run did is in its audit trail (reclaim.audit)\n";
        return exitcode::RunFailed;
    }
    return exitCodeFor(report);
}

} // namespace reclaim
