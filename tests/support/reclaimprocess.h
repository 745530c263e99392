// The built `reclaim` binary run as an operator runs it, against the sandbox: its exit code and
// both output streams, within a deadline (a process that does not end is killed: exit -1).
#pragma once

#include "support/sandboxenv.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <memory>

namespace reclaim::test {

struct Ran
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    QJsonObject json() const;
    QByteArray both() const { return out + err; }
};

// Started with the sandbox's environment (plus `overrides`), not waited for: for races.
std::unique_ptr<QProcess> startReclaim(const SandboxEnv &env, const QString &binary,
                                       const QStringList &args,
                                       const QHash<QString, QString> &overrides = {});
Ran finishReclaim(QProcess &process, int timeoutMs = 120000);

inline Ran runReclaim(const SandboxEnv &env, const QString &binary, const QStringList &args,
                      const QHash<QString, QString> &overrides = {}, int timeoutMs = 120000)
{
    auto p = startReclaim(env, binary, args, overrides);
    return finishReclaim(*p, timeoutMs);
}

} // namespace reclaim::test
