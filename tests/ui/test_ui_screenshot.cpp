// Renders the console on the seeded reference incident to PNGs under the build directory (the
// README's screenshot comes from here), in-process at three window sizes and through
// `reclaim --screenshot`, and checks at each size that what on-call must read is readable: the
// actions' result and precondition in view, the lock holder whole, no label cut, no chart label
// elided. Run under Xvfb for images to look at: xvfb-run ... test_ui_screenshot -platform xcb.
#include "actionsmodel.h"
#include "actionspanel.h"
#include "auditmodel.h"
#include "auditview.h"
#include "consoleincident.h"
#include "consolesession.h"
#include "domainlistmodel.h"
#include "layoutchecks.h"
#include "lockpanel.h"
#include "mainwindow.h"
#include "settings.h"
#include "windowcapture.h"

#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
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
    void rendersTheSeededIncident_data();
    void rendersTheSeededIncident();
    void rendersARejectionAndTheAuditHistory();
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
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    QVERIFY(m_incident->ready());
}

void TestUiScreenshot::rendersTheSeededIncident_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("first start") << QSize(1400, 860);
    QTest::newRow("laptop") << QSize(1024, 640);
    QTest::newRow("large screen") << QSize(1920, 1080);
}

void TestUiScreenshot::rendersTheSeededIncident()
{
    QFETCH(QSize, size);
    Settings settings(m_dir.filePath(QStringLiteral("shot.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, m_incident->profile(), options);
    window.resize(size);
    window.show();
    const QString name = QStringLiteral("console-%1x%2").arg(size.width()).arg(size.height());
    const QString path = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/%1.png").arg(name);
    QFile::remove(path);
    auto *capture = new WindowCapture(&window, path, 120000);
    QSignalSpy finished(capture, &WindowCapture::finished);
    window.start();
    capture->begin();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 130000);
    QCOMPARE(finished.first().first().value<WindowCapture::Outcome>(),
             WindowCapture::Outcome::Report);
    QCOMPARE(QImage(path).size(), size);
    QVERIFY(window.reportsShown() >= 1);
    qInfo("screenshot: %s", qPrintable(path));

    // What must be readable at this size, is: the actions' result, kind and precondition, the
    // domains' names and counts, every label, the lock's lines, the chart's time labels.
    auto unreadable = [&window] {
        QStringList problems = columnsNotInView(
            window.actionsPanel()->view(), {ActionsModel::ResultColumn, ActionsModel::KindColumn,
                                            ActionsModel::PreconditionColumn});
        problems << columnsNotInView(
            window.domainView(), {DomainListModel::NameColumn, DomainListModel::UnknownColumn,
                                  DomainListModel::AbsentColumn, DomainListModel::ScheduledColumn});
        problems << clippedLabels(&window);
        for (const QString &elided : elidedLabels(window.lockPanel()))
            problems << QStringLiteral("lock panel line elided: ") + elided;
        for (const QString &elided : elidedChartLabels(&window))
            problems << QStringLiteral("chart label elided: ") + elided;
        return problems.join(QLatin1Char('\n'));
    };
    QVERIFY(window.actionsModel()->rowCount() > 0);
    QString problems = unreadable(); // the window exactly as captured
    QVERIFY2(problems.isEmpty(), qPrintable(problems));

    // The window with the restorable orphan selected: its evidence, the payload a requeue would
    // enqueue, and its action selected in the actions table.
    const QString key = ConsoleIncident::keyOf(
        m_incident->row(QStringLiteral("restorable-compose-no-queue-entry")));
    QVERIFY(window.selectCandidate(key));
    for (int i = 0; i < 3; ++i) // lay out the new selection before checking it
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const QString requeuePath = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/%1-requeue.png").arg(name);
    QVERIFY(window.grab().save(requeuePath, "PNG"));
    qInfo("screenshot: %s", qPrintable(requeuePath));

    problems = unreadable();
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    QVERIFY2(window.actionsPanel()->selectedText().contains(QStringLiteral("Only if status")),
             qPrintable(window.actionsPanel()->selectedText()));
}

// A rejected action as on-call sees it ("rejected by <operator>", in view with its precondition)
// and the audit history window with that rejection on top, its columns readable.
void TestUiScreenshot::rendersARejectionAndTheAuditHistory()
{
    Settings settings(m_dir.filePath(QStringLiteral("shot-audit.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, m_incident->profile(), options);
    window.resize(1400, 860);
    window.show();
    QSignalSpy reports(&window, &MainWindow::reportShown);
    window.start();
    window.session()->setAutoRefreshSeconds(0);
    QTRY_VERIFY_WITH_TIMEOUT(reports.count() >= 1, 120000);

    const QString key = ConsoleIncident::keyOf(m_incident->row(
        QStringLiteral("orphan-generate-parent-processing"), QStringLiteral("slide")));
    QVERIFY(window.selectCandidate(key));
    const Action *planned = window.actionsModel()->actionFor(key);
    QVERIFY(planned);
    if (planned->result == ActionResult::Pending) {
        QSignalSpy rejected(&window, &MainWindow::rejectionShown);
        window.rejectAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(rejected.count(), 1, 60000);
        QCOMPARE(rejected.first().at(1).toString(), QString());
    }
    QCOMPARE(window.actionsModel()->actionFor(key)->result, ActionResult::Rejected);
    for (int i = 0; i < 3; ++i)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QStringList problems = columnsNotInView(
        window.actionsPanel()->view(),
        {ActionsModel::ResultColumn, ActionsModel::KindColumn, ActionsModel::PreconditionColumn});
    problems << clippedLabels(&window);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    QVERIFY2(window.actionsPanel()->selectedText().contains(QStringLiteral("rejected by")),
             qPrintable(window.actionsPanel()->selectedText()));
    const QString rejectedPath = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/console-rejected.png");
    QVERIFY(window.grab().save(rejectedPath, "PNG"));
    qInfo("screenshot: %s", qPrintable(rejectedPath));

    window.auditHistoryAction()->trigger();
    AuditView *audit = window.auditView();
    QVERIFY(audit);
    QTRY_VERIFY_WITH_TIMEOUT(audit->pagesShown() >= 1, 30000);
    QVERIFY(audit->model()->rowCount() >= 1);
    QCOMPARE(audit->model()->entry(0).result, QStringLiteral("rejected"));
    for (int i = 0; i < 3; ++i)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    problems = columnsNotInView(audit->view(), {AuditModel::TimeColumn, AuditModel::ResultColumn,
                                                AuditModel::JobColumn, AuditModel::ActionColumn,
                                                AuditModel::PreconditionColumn});
    problems << clippedLabels(audit);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    const QString auditPath = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/audit-history.png");
    QVERIFY(audit->grab().save(auditPath, "PNG"));
    qInfo("screenshot: %s", qPrintable(auditPath));

    // Find job by id (Ctrl+G) on the rejected job: what the latest run saw, the row and its
    // queues now, and its history.
    QSignalSpy explained(&window, &MainWindow::jobExplanationShown);
    AuditFilter job;
    job.rowId = key.section(u'/', 1);
    window.openAuditHistory(job);
    window.findJob(job.rowId);
    QTRY_VERIFY_WITH_TIMEOUT(explained.count() >= 1, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(audit->model()->rowCount() >= 1, 30000);
    for (int i = 0; i < 3; ++i)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    problems = clippedLabels(audit);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    const QString findPath = QStringLiteral(RECLAIM_SCREENSHOT_DIR "/audit-find-job.png");
    QVERIFY(audit->grab().save(findPath, "PNG"));
    qInfo("screenshot: %s", qPrintable(findPath));
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
