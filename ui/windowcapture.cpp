#include "windowcapture.h"

#include "banner.h"
#include "mainwindow.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QPixmap>

namespace reclaim::ui {

WindowCapture::WindowCapture(MainWindow *window, QString path, int timeoutMs)
    : QObject(window), m_window(window), m_path(std::move(path))
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] { capture(Outcome::TimedOut); });
    connect(window, &MainWindow::reportShown, this, [this] { m_reportSeen = true; });
    // The session peeks the lock right after every run; that status is the one to show.
    connect(window, &MainWindow::lockStatusShown, this, [this] {
        if (m_reportSeen)
            capture(Outcome::Report);
    });
}

void WindowCapture::begin()
{
    if (m_window->banner()->hasMessage(QStringLiteral("config"))) {
        capture(Outcome::ConfigProblem);
        return;
    }
    m_timeout.start();
}

void WindowCapture::capture(Outcome outcome)
{
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    // Let the layout settle after the last model change before rendering.
    QTimer::singleShot(0, this, [this, outcome] {
        // Layouts that a late text change asked for (a splitter minimum, a wrapped label) run
        // now, so the image shows the window as it settles, not a frame before.
        for (int i = 0; i < 3; ++i)
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QDir().mkpath(QFileInfo(m_path).absolutePath());
        const QPixmap pixmap = m_window->grab();
        if (!pixmap.save(m_path, "PNG")) {
            emit finished(Outcome::SaveFailed, QStringLiteral("could not write %1").arg(m_path));
            return;
        }
        emit finished(outcome, outcome == Outcome::TimedOut
                                   ? QStringLiteral("no report arrived in time")
                                   : QString());
    });
}

} // namespace reclaim::ui
