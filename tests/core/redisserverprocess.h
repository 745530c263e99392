// A redis-server a test starts with its own arguments (TLS ports, a Unix socket) on loopback,
// in a directory of its own, stopped when the object goes.
#pragma once

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace reclaim::test {

class RedisServerProcess final
{
public:
    RedisServerProcess() = default;
    ~RedisServerProcess();
    Q_DISABLE_COPY_MOVE(RedisServerProcess)

    // A loopback port nobody listens on now.
    static int freePort();

    // Starts redis-server with `args` (after --bind 127.0.0.1 and no persistence) and waits
    // until it says it accepts connections; false with error() set otherwise.
    bool start(const QStringList &args);
    void stop();
    void pause();  // SIGSTOP
    void resume(); // SIGCONT
    QString dir() const { return m_dir.path(); }
    QString error() const { return m_error; }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    QString m_error;
};

} // namespace reclaim::test
