// A `reclaim --daemon` child process for tests: its stderr read as JSON log events, its
// HTTP endpoints fetched, signals sent to it.
#pragma once

#include "support/sandboxenv.h"

#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <functional>

namespace reclaim::test {

struct HttpResult
{
    int status = 0; // 0: no HTTP answer at all
    QByteArray body;
};

// GET http://127.0.0.1:<port><path> and wait for the answer (at most `timeoutMs`).
HttpResult httpGet(quint16 port, const QString &path, int timeoutMs = 5000);

// The value of one sample line ("name{labels} value") in a Prometheus exposition; -1 if absent.
double metricValue(const QByteArray &exposition, const QString &sample);

// A minimal environment for the daemon: PATH and HOME, the given extras, and a Qt platform
// that does not exist — so a daemon that touched QtGui would fail to start.
QProcessEnvironment daemonEnvironment(const QProcessEnvironment &extra = {});

// Holds every Redis write (CLIENT PAUSE ... WRITE) until release() or destruction: runs
// that reach their lock acquisition wait there, in flight, for as long as a test needs.
class RedisWritePause final
{
public:
    explicit RedisWritePause(const SandboxEnv &env);
    ~RedisWritePause();
    Q_DISABLE_COPY_MOVE(RedisWritePause)

    bool active() const { return m_active; }
    // Clients whose commands wait on the pause (INFO clients: blocked_clients).
    int blockedClients();
    void release();

private:
    RedisConnection m_admin;
    bool m_active = false;
};

class DaemonProcess final : public QObject
{
    Q_OBJECT
public:
    using Predicate = std::function<bool(const QJsonObject &)>;

    explicit DaemonProcess(QProcessEnvironment env, QObject *parent = nullptr);
    ~DaemonProcess() override; // SIGKILL if still running

    // Starts `reclaim --daemon --log-format json --metrics-address 127.0.0.1:0 <args>`.
    bool start(const QStringList &args);

    qint64 pid() const { return m_pid; }
    // The port the daemon reported in its "started" event (0 until then).
    quint16 metricsPort() const;

    const QList<QJsonObject> &events() const { return m_events; }
    // Lines of stderr that were not JSON objects (must stay empty in JSON mode).
    const QStringList &strayLines() const { return m_stray; }
    QByteArray rawStderr() const { return m_raw; }

    QList<QJsonObject> eventsOf(const QString &event) const;
    // Waits until `count` events satisfy `pred` (counting from event index `from`).
    bool waitFor(const Predicate &pred, int timeoutMs, int count = 1, qsizetype from = 0);
    bool waitForEvent(const QString &event, int timeoutMs, int count = 1, qsizetype from = 0);

    void sendSignal(int signo);
    bool waitForExit(int timeoutMs);
    QProcess &process() { return m_process; }

private:
    void readStderr();

    QProcess m_process;
    qint64 m_pid = 0;
    QByteArray m_pending;
    QByteArray m_raw;
    QList<QJsonObject> m_events;
    QStringList m_stray;
};

} // namespace reclaim::test
