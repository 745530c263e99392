#include "support/reclaimprocess.h"

#include <QJsonDocument>

namespace reclaim::test {

QJsonObject Ran::json() const
{
    return QJsonDocument::fromJson(out).object();
}

std::unique_ptr<QProcess> startReclaim(const SandboxEnv &env, const QString &binary,
                                       const QStringList &args,
                                       const QHash<QString, QString> &overrides)
{
    QProcessEnvironment environment = env.processEnvironment();
    for (auto it = overrides.constBegin(); it != overrides.constEnd(); ++it)
        environment.insert(it.key(), it.value());
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(environment);
    p->start(binary, args);
    return p;
}

Ran finishReclaim(QProcess &p, int timeoutMs)
{
    Ran ran;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return ran;
    }
    ran.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    ran.out = p.readAllStandardOutput();
    ran.err = p.readAllStandardError();
    return ran;
}

} // namespace reclaim::test
