#include "consolewindow.h"

#include <QCoreApplication>
#include <QEventLoop>

namespace reclaim::bench {

void settle()
{
    for (int i = 0; i < 8; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

std::unique_ptr<ui::MainWindow> newWindow(ui::Settings &settings, const QString &configPath)
{
    ui::ConnectionProfile profile;
    profile.configPath = configPath;
    ui::MainWindow::Options options;
    options.readOnly = true; // dry runs: the benchmark's workload stays as built
    options.rememberProfile = false;
    auto w = std::make_unique<ui::MainWindow>(settings, profile, options);
    w->resize(1440, 900);
    w->show();
    settle();
    return w;
}

} // namespace reclaim::bench
