// Renders the console on the seeded reference incident to PNGs under the build directory (the
// README's screenshot comes from here), in-process and through `reclaim --screenshot`.
#include "consoleincident.h"
#include "mainwindow.h"
#include "settings.h"
#include "windowcapture.h"

#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::ui;
using namespace reclaim::test;

class TestUiScreenshot : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void rendersTheSeededIncident();
    void commandLineScreenshot();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleIncident> m_incident;
};

void TestUiScreenshot::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_incident = std::make_unique<ConsoleIncident>(7);
    if (!m_incident->sandboxAvailable())
        QSKIP("no sandbox (run through ctest -L integration)");
    QVERIFY(m_incident->ready());
}

void TestUiScreenshot::rendersTheSeededIncident()
{
    Settings settings(m_dir.filePath(QStringLiteral("shot.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, m_incident->profile(), options);
    window.resize(1400, 860);
    window.show();
    const QString path = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/console.png");
    QFile::remove(path);
    auto *capture = new WindowCapture(&window, path, 120000);
    QSignalSpy finished(capture, &WindowCapture::finished);
    window.start();
    capture->begin();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 130000);
    QCOMPARE(finished.first().first().value<WindowCapture::Outcome>(),
             WindowCapture::Outcome::Report);
    const QImage image(path);
    QCOMPARE(image.size(), QSize(1400, 860));
    QVERIFY(window.reportsShown() >= 1);
    qInfo("screenshot: %s", qPrintable(path));

    // The same window with the restorable orphan selected: its evidence and the payload a
    // requeue would enqueue.
    const QString key = ConsoleIncident::keyOf(
        m_incident->row(QStringLiteral("restorable-compose-no-queue-entry")));
    QVERIFY(window.selectCandidate(key));
    QCoreApplication::sendPostedEvents(); // lay out the new selection before rendering it
    const QString requeuePath = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/console-requeue.png");
    QVERIFY(window.grab().save(requeuePath, "PNG"));
    qInfo("screenshot: %s", qPrintable(requeuePath));
}

void TestUiScreenshot::commandLineScreenshot()
{
    const QString path = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/console-cli.png");
    QFile::remove(path);
    QProcess reclaim;
    QProcessEnvironment env = m_incident->env().processEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("HOME"), m_dir.path()); // no user settings are read or written
    reclaim.setProcessEnvironment(env);
    reclaim.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    reclaim.start(QStringLiteral(RECLAIM_EXECUTABLE),
                  {QStringLiteral("--config"),
                   QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"),
                   QStringLiteral("--read-only"), QStringLiteral("--screenshot"), path});
    QVERIFY(reclaim.waitForFinished(150000));
    QCOMPARE(reclaim.exitStatus(), QProcess::NormalExit);
    QCOMPARE(reclaim.exitCode(), 0);
    QCOMPARE(QImage(path).size(), QSize(1400, 860));
}

QTEST_MAIN(TestUiScreenshot)
#include "test_ui_screenshot.moc"
