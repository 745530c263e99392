#include "heldcommand.h"

#include "config/configloader.h"
#include "exitcodes.h"
#include "heldprinter.h"
#include "service/engine.h"

#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QTextStream>

namespace reclaim {

namespace {

Actor operatorActor()
{
    return Actor{QStringLiteral("operator"),
                 QHostInfo::localHostName(),
                 QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER")),
                 {}};
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
        QJsonArray rows;
        for (const HeldAction &h : *held)
            rows.append(heldActionJson(h));
        out << QJsonDocument(QJsonObject{{QStringLiteral("held"), rows}})
                   .toJson(QJsonDocument::Indented);
    } else {
        out << formatHeldList(*held);
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
    const auto held = engine.heldActions(filter);
    if (!held)
        return unexpected(
            QStringLiteral("could not read the held actions: %1").arg(held.error().message));
    QList<qint64> ids;
    for (const HeldAction &h : *held)
        if (h.state == HeldState::Held)
            ids << h.id;
    return ids;
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
    // loss takes a while and can be 100,000 decisions. --json streams the same document.
    if (cmd.json)
        out << "{\n    \"decisions\": [";
    const auto take = [&](const HeldDecision &d) {
        if (cmd.json)
            out << (decided == 0 ? "\n" : ",\n")
                << QJsonDocument(heldDecisionJson(d)).toJson(QJsonDocument::Compact);
        else
            out << formatHeldDecision(d) << "\n";
        out.flush();
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
    if (cmd.json)
        out << "\n    ],\n    \"redisRoundTrips\": " << engine.redisRoundTrips() << "\n}\n";
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
