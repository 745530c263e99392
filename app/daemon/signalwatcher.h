// Turns SIGTERM, SIGINT and SIGHUP into Qt signals on the main thread (the self-pipe trick:
// the handler only write()s one byte, which is async-signal-safe).
#pragma once

#include <QObject>
#include <QString>

class QSocketNotifier;

namespace reclaim {

class SignalWatcher final : public QObject
{
    Q_OBJECT
public:
    // One per process: the pipe and the handlers are process-wide.
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;
    Q_DISABLE_COPY_MOVE(SignalWatcher)

    // Empty when the handlers are installed; otherwise why not.
    QString error() const { return m_error; }

    static QString signalName(int signo);

signals:
    void terminateRequested(int signo); // SIGTERM or SIGINT
    void reloadRequested();             // SIGHUP

private:
    void drain();

    QSocketNotifier *m_notifier = nullptr;
    QString m_error;
};

} // namespace reclaim
