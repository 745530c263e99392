// Renders the console to a PNG once it has something true to show: the first run's report and
// the lock status read after it (or, when the configuration did not load, that problem).
// Used by `reclaim --screenshot` and the screenshot test; it never blocks the event loop.
#pragma once

#include <QObject>
#include <QTimer>

namespace reclaim::ui {

class MainWindow;

class WindowCapture final : public QObject
{
    Q_OBJECT
public:
    enum class Outcome
    {
        Report,
        ConfigProblem,
        TimedOut,
        SaveFailed
    };

    WindowCapture(MainWindow *window, QString path, int timeoutMs = 120000);

    // Call after MainWindow::start().
    void begin();

signals:
    void finished(reclaim::ui::WindowCapture::Outcome outcome, const QString &detail);

private:
    void capture(Outcome outcome);

    MainWindow *m_window;
    QString m_path;
    QTimer m_timeout;
    bool m_reportSeen = false;
    bool m_done = false;
};

} // namespace reclaim::ui
