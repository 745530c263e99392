#include "heldcommand.h"

#include "config/configloader.h"
#include "domain/jsonwriter.h"
#include "exitcodes.h"
#include "heldprinter.h"
#include "service/engine.h"

#include <QElapsedTimer>
#include <QFile>
#include <QHostInfo>
#include <QProcessEnvironment>
#include <QTextStream>
#include <optional>

namespace reclaim {

namespace {

Actor operatorActor()
{
    return Actor{QStringLiteral("operator"),
                 QHostInfo::localHostName(),
                 QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER")),
                 {}};
}

// Output that could not be written whole (stdout on a full disk, a closed pipe) is not a
// success: a script gating on the exit code would read a cut list as the whole one. What was
// decided stays decided; the held actions' table and the audit say what.
int notWritten(const QString &what, const QString &why)
{
    QTextStream(stderr) << "reclaim: " << what << " could not be written to stdout (" << why
                        << "); reclaim.held_action and reclaim.audit have them\n";
    return exitcode::RunFailed;
}

int listHeld(const CommandLine &cmd, Engine &engine)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const auto held = engine.heldActions(HeldFilter{});
    if (!held) {
        err << "reclaim: could not read the held actions: " << held.error().message << "\n";
        return exitcode::RunFailed;
    }
    if (cmd.json) {
        QFile file;
        if (!file.open(stdout, QIODevice::WriteOnly))
            return exitcode::RunFailed;
        JsonWriter w(&file);
        w.beginObject();
        w.breakLine();
        w.key(QLatin1StringView("held")).beginArray();
        for (const HeldAction &h : *held) {
            w.breakLine();
            writeHeldAction(w, h);
        }
        w.endArray().endObject();
        w.flush();
        file.write("\n");
        if (!file.flush() || file.error() != QFileDevice::NoError)
            return notWritten(QStringLiteral("the held actions"), file.errorString());
    } else {
        out << formatHeldList(*held);
        out.flush();
        if (out.status() != QTextStream::Ok)
            return notWritten(QStringLiteral("the held actions"),
                              QStringLiteral("the write failed"));
    }
    return exitcode::Ran;
}

// The ids --approve --domain D [--kind K] names: every action of D held now.
Expected<QList<qint64>, QString> idsOfDomain(const CommandLine &cmd, Engine &engine)
{
    if (!engine.config().domain(cmd.domain)) {
        QStringList names;
        for (const DomainConfig &d : engine.config().domains)
            names << d.name;
        return unexpected(
            QStringLiteral("%1 configures no domain '%2' (it has: %3)")
                .arg(engine.config().sourcePath, cmd.domain, names.join(QStringLiteral(", "))));
    }
    HeldFilter filter{cmd.domain, std::nullopt, {}, true};
    if (!cmd.kind.isEmpty())
        filter.kind = cmd.kind == QLatin1String("fail") ? ActionKind::Fail : ActionKind::Requeue;
    const auto ids = engine.idsHeldNow(filter);
    if (!ids)
        return unexpected(
            QStringLiteral("could not read the held actions: %1").arg(ids.error().message));
    return *ids;
}

int decide(const CommandLine &cmd, Engine &engine)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QList<qint64> ids = cmd.heldIds;
    if (!cmd.domain.isEmpty()) {
        const auto named = idsOfDomain(cmd, engine);
        if (!named) {
            err << "reclaim: " << named.error() << "\n";
            return named.error().contains(QLatin1String("configures no domain"))
                       ? exitcode::Usage
                       : exitcode::RunFailed;
        }
        ids = *named;
        if (ids.isEmpty()) {
            err << "reclaim: nothing of " << cmd.domain << " is held"
                << (cmd.kind.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(cmd.kind)) << "\n";
            return exitcode::Ran;
        }
    }
    const Actor actor = operatorActor();
    const bool approving = cmd.mode == CommandLine::Mode::Approve;
    const HeldDecision::Outcome done =
        approving ? HeldDecision::Outcome::Executed : HeldDecision::Outcome::Rejected;
    int decided = 0;
    int notDone = 0;
    bool storeFailed = false;
    // Each decision is told as it is made, and not kept: approving a whole domain after a data
    // loss takes a while and can be 100,000 decisions. --json streams the same document. What
    // is written reaches stdout at least every 100 ms, not one system call per decision.
    QFile jsonOut;
    std::optional<JsonWriter> json;
    if (cmd.json) {
        if (!jsonOut.open(stdout, QIODevice::WriteOnly))
            return exitcode::RunFailed;
        json.emplace(&jsonOut);
        json->beginObject();
        json->breakLine();
        json->key(QLatin1StringView("decisions")).beginArray();
    }
    QElapsedTimer sinceFlush;
    sinceFlush.start();
    const auto take = [&](const HeldDecision &d) {
        if (json) {
            json->breakLine();
            writeHeldDecision(*json, d);
        } else {
            out << formatHeldDecision(d) << "\n";
        }
        if (sinceFlush.elapsed() >= 100) {
            if (json)
                json->flush();
            else
                out.flush();
            sinceFlush.restart();
        }
        ++decided;
        if (d.outcome == done)
            return;
        ++notDone;
        storeFailed |= d.outcome == HeldDecision::Outcome::StoreFailed;
        err << "reclaim: held action " << d.id << " was not " << (approving ? "run" : "rejected")
            << ": " << heldOutcomeName(d.outcome) << " — " << d.detail << "\n";
        err.flush();
    };
    if (approving)
        engine.approveHeld(ids, actor, take);
    else
        for (const HeldDecision &d : engine.rejectHeld(ids, actor, cmd.reason))
            take(d);
    if (json) {
        json->endArray();
        json->breakLine();
        json->member(QLatin1StringView("redisRoundTrips"), engine.redisRoundTrips());
        json->endObject();
        json->flush();
        jsonOut.write("\n");
        if (!jsonOut.flush() || jsonOut.error() != QFileDevice::NoError)
            return notWritten(QStringLiteral("the decisions"), jsonOut.errorString());
    }
    out.flush();
    if (out.status() != QTextStream::Ok)
        return notWritten(QStringLiteral("the decisions"), QStringLiteral("the write failed"));
    if (storeFailed && notDone == decided)
        return exitcode::RunFailed;
    return notDone == 0 ? exitcode::Ran : exitcode::NotAllDecided;
}

} // namespace

int runHeldCommand(const CommandLine &cmd)
{
    QTextStream err(stderr);
    auto config = ConfigLoader::loadFile(cmd.configPath);
    if (!config) {
        err << "reclaim: configuration error: " << config.error().toString() << "\n";
        return exitcode::ConfigError;
    }
    Engine engine(*config);
    if (cmd.mode == CommandLine::Mode::Held)
        return listHeld(cmd, engine);
    return decide(cmd, engine);
}

} // namespace reclaim
