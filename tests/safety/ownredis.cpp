#include "ownredis.h"

#include "redis/redisconnection.h"

#include <QTcpServer>
#include <QThread>
#include <csignal>

namespace reclaim::test {

OwnRedis::OwnRedis()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    m_port = probe.serverPort();
}

OwnRedis::~OwnRedis()
{
    resume();
    stop();
}

bool OwnRedis::start()
{
    m_process.start(QStringLiteral("redis-server"),
                    {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"),
                     QStringLiteral("127.0.0.1"), QStringLiteral("--save"), QString(),
                     QStringLiteral("--appendonly"), QStringLiteral("yes"),
                     QStringLiteral("--appendfsync"), QStringLiteral("always"),
                     QStringLiteral("--dir"), m_dir.path()});
    if (!m_process.waitForStarted(5000))
        return false;
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = m_port;
    for (int i = 0; i < 100; ++i) {
        auto c = RedisConnection::open(e, std::chrono::milliseconds(200));
        if (c && c->command({QByteArrayLiteral("PING")}))
            return true;
        QThread::msleep(50);
    }
    return false;
}

void OwnRedis::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(10000)) {
        m_process.kill();
        m_process.waitForFinished();
    }
}

void OwnRedis::pause()
{
    if (running())
        ::kill(static_cast<pid_t>(m_process.processId()), SIGSTOP);
}

void OwnRedis::resume()
{
    if (running())
        ::kill(static_cast<pid_t>(m_process.processId()), SIGCONT);
}

bool OwnRedis::running() const
{
    return m_process.state() == QProcess::Running;
}

} // namespace reclaim::test
