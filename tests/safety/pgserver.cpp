#include "pgserver.h"

#include <QFile>
#include <QProcess>
#include <unistd.h>

namespace reclaim::test {

bool restartPostgres(const SandboxEnv &env)
{
    QStringList cmd{QStringLiteral("/usr/lib/postgresql/15/bin/pg_ctl"),
                    QStringLiteral("-D"),
                    env.pgData,
                    QStringLiteral("-w"),
                    QStringLiteral("-m"),
                    QStringLiteral("fast"),
                    QStringLiteral("restart")};
    if (::geteuid() == 0)
        cmd = QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--")} +
              cmd;
    QProcess p;
    p.start(::geteuid() == 0 ? QStringLiteral("runuser") : cmd.takeFirst(), cmd);
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

qint64 postmasterPid(const SandboxEnv &env)
{
    QFile f(env.pgData + QStringLiteral("/postmaster.pid"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return f.readLine().trimmed().toLongLong();
}

} // namespace reclaim::test
