// A redis-server owned by one test, with append-only persistence so it can be stopped and
// restarted mid-run without losing the queues (the sandbox's Redis keeps nothing on disk).
#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace reclaim::test {

class OwnRedis final
{
public:
    OwnRedis();
    ~OwnRedis();
    Q_DISABLE_COPY_MOVE(OwnRedis)

    bool start();  // starts (again) on the same port and directory; waits until it answers
    void stop();   // SIGTERM and wait: the append-only file is complete
    void pause();  // SIGSTOP
    void resume(); // SIGCONT
    bool running() const;
    QString url() const { return QStringLiteral("redis://127.0.0.1:%1/0").arg(m_port); }

private:
    QTemporaryDir m_dir;
    int m_port = 0;
    QProcess m_process;
};

} // namespace reclaim::test
