#include "pgserver.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <csignal>
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

bool signalServer(const SandboxEnv &env, int signal)
{
    const qint64 postmaster = postmasterPid(env);
    if (postmaster <= 0)
        return false;
    ::kill(static_cast<pid_t>(postmaster), signal);
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // "pid (comm) state ppid ...": the name may hold spaces, so read after the last ')'.
        const QByteArray text = stat.readAll();
        const QList<QByteArray> rest = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (rest.size() > 1 && rest.at(1).toLongLong() == postmaster)
            ::kill(static_cast<pid_t>(pid), signal);
    }
    return true;
}

} // namespace reclaim::test
