#include "consolemode.h"

#include "exitcodes.h"
#include "mainwindow.h"
#include "service/checkrunner.h"
#include "settings.h"
#include "windowcapture.h"

#include <QApplication>
#include <QScreen>
#include <QTemporaryDir>
#include <QTextStream>
#include <memory>

namespace reclaim {

int runConsole(int argc, char **argv, const CommandLine &cmd)
{
    QApplication app(argc, argv);
    const CheckThreadsJoin joinChecks; // after the window's dialogs are gone, before `app`
    QApplication::setOrganizationName(QStringLiteral("Reclaim"));
    QApplication::setApplicationName(QStringLiteral("reclaim-console"));
    const bool screenshot = !cmd.screenshotPath.isEmpty();

    // A screenshot is reproducible and leaves the user's remembered settings alone.
    QTemporaryDir scratch;
    auto settings =
        screenshot ? std::make_unique<ui::Settings>(scratch.filePath(QStringLiteral("console.ini")))
                   : std::make_unique<ui::Settings>();
    ui::ConnectionProfile profile = ui::ConnectionProfile::fromSettings(*settings);
    // An explicit --config wins over the remembered file.
    if (cmd.configPath != defaultConfigPath() || profile.configPath.isEmpty())
        profile.configPath = cmd.configPath;

    ui::MainWindow::Options options;
    options.readOnly = cmd.readOnly;
    options.rememberProfile = !screenshot;
    ui::MainWindow window(*settings, profile, options);
    // First start (nothing remembered): a size where every panel is readable, within the screen.
    if (screenshot || settings->windowGeometry().isEmpty()) {
        QSize size(1400, 860);
        if (!screenshot && QGuiApplication::primaryScreen())
            size =
                size.boundedTo(QGuiApplication::primaryScreen()->availableGeometry().size() * 0.95);
        window.resize(size);
    }
    window.show();
    window.start();
    if (!screenshot)
        return QApplication::exec();

    auto *capture = new ui::WindowCapture(&window, cmd.screenshotPath);
    int code = exitcode::RunFailed;
    QObject::connect(capture, &ui::WindowCapture::finished, &app,
                     [&code](ui::WindowCapture::Outcome outcome, const QString &detail) {
                         switch (outcome) {
                         case ui::WindowCapture::Outcome::Report:
                             code = exitcode::Ran;
                             break;
                         case ui::WindowCapture::Outcome::ConfigProblem:
                             code = exitcode::ConfigError;
                             break;
                         case ui::WindowCapture::Outcome::TimedOut:
                         case ui::WindowCapture::Outcome::SaveFailed:
                             QTextStream(stderr) << "reclaim: screenshot: " << detail << "\n";
                             code = exitcode::RunFailed;
                             break;
                         }
                         QApplication::exit(code);
                     });
    capture->begin();
    QApplication::exec();
    return code;
}

} // namespace reclaim
