#include "redisserverprocess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTcpServer>
#include <csignal>

namespace reclaim::test {

RedisServerProcess::~RedisServerProcess()
{
    resume();
    stop();
}

int RedisServerProcess::freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

bool RedisServerProcess::start(const QStringList &args)
{
    // The log goes to a file, not a pipe nobody reads: a full pipe would block the server.
    const QString logPath = m_dir.filePath(QStringLiteral("redis.log"));
    QFile::remove(logPath);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    m_process.setStandardErrorFile(QProcess::nullDevice());
    m_process.start(QStringLiteral("redis-server"),
                    QStringList{QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"),
                                QStringLiteral("no"), QStringLiteral("--dir"), m_dir.path(),
                                QStringLiteral("--logfile"), logPath} +
                        args);
    if (!m_process.waitForStarted(5000)) {
        m_error = QStringLiteral("redis-server did not start: %1").arg(m_process.errorString());
        return false;
    }
    // Its log says when every listener (TCP, TLS, socket) is open.
    QByteArray log;
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && m_process.state() == QProcess::Running) {
        QFile f(logPath);
        if (f.open(QIODevice::ReadOnly))
            log = f.readAll();
        if (log.contains("Ready to accept connections"))
            return true;
        m_process.waitForFinished(20); // a short wait that also notices an early exit
    }
    m_error = QStringLiteral("redis-server %1 did not become ready: %2")
                  .arg(args.join(QLatin1Char(' ')), QString::fromLocal8Bit(log.right(2000)));
    stop();
    return false;
}

void RedisServerProcess::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(10000)) {
        m_process.kill();
        m_process.waitForFinished();
    }
}

void RedisServerProcess::pause()
{
    if (m_process.state() == QProcess::Running)
        ::kill(static_cast<pid_t>(m_process.processId()), SIGSTOP);
}

void RedisServerProcess::resume()
{
    if (m_process.state() == QProcess::Running)
        ::kill(static_cast<pid_t>(m_process.processId()), SIGCONT);
}

} // namespace reclaim::test
