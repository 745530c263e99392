// The main window without servers: a configuration that does not load, servers that cannot be
// reached, what may and may not be approved, read-only mode, the lock panel, and where
// passwords go (never into settings).
#include "actionsmodel.h"
#include "banner.h"
#include "candidatetablemodel.h"
#include "connectiondialog.h"
#include "connectionprofile.h"
#include "consolesession.h"
#include "detailspanel.h"
#include "domain/locktoken.h"
#include "fencing/locklease.h"
#include "lockpanel.h"
#include "mainwindow.h"
#include "settings.h"
#include "syntheticreport.h"

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace Qt::StringLiterals;
using namespace reclaim::ui;
using namespace reclaim::test;

namespace {
const QString kSample = QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");

// Nothing listens on port 1: connections are refused at once.
ConnectionProfile unreachableProfile()
{
    ConnectionProfile p;
    p.configPath = kSample;
    p.postgresUrl = QStringLiteral("postgresql://nobody@127.0.0.1:1/none");
    p.redisUrl = QStringLiteral("redis://127.0.0.1:1/0");
    return p;
}

QList<CandidateVerdict> oneOfEach()
{
    return {syntheticCandidate(u"slide"_s, u"u1"_s, Verdict::Unknown),
            syntheticCandidate(u"slide"_s, u"a1"_s, Verdict::Absent),
            syntheticCandidate(u"slide"_s, u"s1"_s, Verdict::Scheduled)};
}
} // namespace

class TestUiMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void configThatDoesNotLoadIsShownInTheWindow();
    void unreachableServersAreShownWhereTheyHappen();
    void onlyPendingActionsOfAbsentJobsCanBeApproved();
    void readOnlyShowsEverythingApprovesNothing();
    void closingDuringARunIsSafe();
    void lockPanelDecodesHolderAndCountsDown();
    void settingsNeverStorePasswords();
    void profilePasswordsComeFromMemoryOrEnvironment();
    void dialogMovesPasswordOutOfTheUrl();

private:
    QTemporaryDir m_dir;
};

void TestUiMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestUiMainWindow::configThatDoesNotLoadIsShownInTheWindow()
{
    Settings settings(m_dir.filePath(QStringLiteral("a.ini")));
    ConnectionProfile profile;
    profile.configPath = m_dir.filePath(QStringLiteral("missing.json"));
    MainWindow window(settings, profile, {});
    window.show();
    window.start();
    QVERIFY(window.banner()->isVisible());
    QVERIFY2(window.banner()->text().contains(QStringLiteral("does not exist")),
             qPrintable(window.banner()->text()));
    QVERIFY(!window.session()->hasConfig());
    QVERIFY(!window.runNowAction()->isEnabled());
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(window.lockPanel()->stateText().contains(QStringLiteral("Not connected")));

    // An invalid file names the key at fault, still in the window.
    QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(
        R"({"connections": {"postgresUrl": "postgresql://a@h/db", "redisUrl": "redis://h"}, "domains": [{"name": "x"}]})");
    bad.close();
    profile.configPath = bad.fileName();
    MainWindow second(settings, profile, {});
    second.start();
    QVERIFY2(second.banner()->text().contains(QStringLiteral("domains[0]")),
             qPrintable(second.banner()->text()));
}

void TestUiMainWindow::unreachableServersAreShownWhereTheyHappen()
{
    Settings settings(m_dir.filePath(QStringLiteral("b.ini")));
    MainWindow window(settings, unreachableProfile(), {false, false, 500});
    window.show();
    QSignalSpy reports(&window, &MainWindow::reportShown);
    window.start();
    QVERIFY(window.session()->hasConfig());
    // The run fails (PostgreSQL refused) and says so in the banner; the UI thread never waited.
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 20000);
    QVERIFY2(window.banner()->text().contains(QStringLiteral("could not proceed")),
             qPrintable(window.banner()->text()));
    QVERIFY(!window.banner()->text().contains(QStringLiteral("secret")));
    // The lock panel says Redis is unreachable, in words.
    QTRY_VERIFY_WITH_TIMEOUT(window.lockShown(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.lockPanel()->stateText().contains(QStringLiteral("Redis unreachable")), 20000);
    QCOMPARE(window.candidateModel()->rowCount(), 0);
}

void TestUiMainWindow::onlyPendingActionsOfAbsentJobsCanBeApproved()
{
    Settings settings(m_dir.filePath(QStringLiteral("c.ini")));
    MainWindow window(settings, unreachableProfile(), {});
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window)); // window shortcuts (A, R) need an active window
    QSignalSpy reports(&window, &MainWindow::reportShown);
    window.start();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 20000); // the failed real run, out of the way

    window.showReport(syntheticReport(oneOfEach()));
    QVERIFY(window.selectCandidate(QStringLiteral("slide/u1")));
    QCOMPARE(window.currentKey(), QStringLiteral("slide/u1"));
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(window.approvalBlocker().startsWith(QStringLiteral("UNKNOWN")));
    window.approveAction()->trigger(); // and the shortcut's path does nothing either
    QCOMPARE(window.session()->approvalsInFlight(), 0);
    QTest::keyClick(window.candidateView(), Qt::Key_A);
    QCOMPARE(window.session()->approvalsInFlight(), 0);

    QVERIFY(window.selectCandidate(QStringLiteral("slide/s1")));
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(window.approvalBlocker().startsWith(QStringLiteral("SCHEDULED")));

    QVERIFY(window.selectCandidate(QStringLiteral("slide/a1")));
    QVERIFY2(window.approveAction()->isEnabled(), qPrintable(window.approvalBlocker()));
    QCOMPARE(window.approveAction()->text(), QStringLiteral("Approve FAIL"));
    // The actions table follows the selection, so the evidence and the action are both in view.
    QVERIFY(window.detailsPanel()->html().contains(QStringLiteral("What Reclaim will do")));

    // Reject (R): nothing written, shown as dropped, no longer approvable.
    QTest::keyClick(window.candidateView(), Qt::Key_R);
    QCOMPARE(window.actionsModel()->actionFor(QStringLiteral("slide/a1"))->result,
             ActionResult::Dropped);
    QCOMPARE(window.session()->approvalsInFlight(), 0);
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(window.approvalBlocker().startsWith(QStringLiteral("Already done")));
}

void TestUiMainWindow::readOnlyShowsEverythingApprovesNothing()
{
    Settings settings(m_dir.filePath(QStringLiteral("d.ini")));
    MainWindow::Options options;
    options.readOnly = true;
    MainWindow window(settings, unreachableProfile(), options);
    window.show();
    window.start();
    window.showReport(syntheticReport(oneOfEach()));
    QCOMPARE(window.candidateModel()->rowCount(), 3);
    QVERIFY(window.selectCandidate(QStringLiteral("slide/a1")));
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(!window.rejectAction()->isEnabled());
    QVERIFY(window.approvalBlocker().contains(QStringLiteral("Read-only")));
    window.approveAction()->trigger();
    QCOMPARE(window.session()->approvalsInFlight(), 0);
    QVERIFY(!window.session()->approve(Action{}, Candidate{}));
}

void TestUiMainWindow::closingDuringARunIsSafe()
{
    // The window goes while its run and a lock peek are still queued on the worker: the worker
    // thread is joined, and answers for the gone window are dropped, not delivered.
    Settings settings(m_dir.filePath(QStringLiteral("e.ini")));
    auto window =
        std::make_unique<MainWindow>(settings, unreachableProfile(), MainWindow::Options{});
    window->show();
    window->start();
    QVERIFY(window->session()->runInFlight());
    window.reset();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents();
}

void TestUiMainWindow::lockPanelDecodesHolderAndCountsDown()
{
    LockPanel panel;
    LockStatus other;
    other.reachable = true;
    other.holder =
        QStringLiteral("reclaim;host=worker-7;pid=4242;since=2024-05-01T03:00:00.000Z;nonce=ab");
    other.ttlMs = 600000;
    other.generation = 41;
    panel.setStatus(other);
    QVERIFY(panel.stateText().contains(QStringLiteral("another runner")));
    QVERIFY(!panel.heldByThisConsole());
    const qint64 first = panel.remainingTtlMs();
    QVERIFY(first <= 600000 && first > 590000);
    QTRY_VERIFY_WITH_TIMEOUT(panel.remainingTtlMs() <= first - 1000,
                             5000); // counts down between peeks

    LockStatus mine = other;
    const LockHolder me = parseLockToken(makeLockToken());
    mine.holder = QStringLiteral("reclaim;host=%1;pid=%2;since=x;nonce=1").arg(me.host).arg(me.pid);
    panel.setStatus(mine);
    QVERIFY(panel.heldByThisConsole());
    QVERIFY(panel.stateText().contains(QStringLiteral("this console")));

    LockStatus down;
    down.reachable = false;
    down.error = QStringLiteral("connect: Connection refused (redis://:hunter2@10.0.0.5:6379)");
    panel.setStatus(down);
    QVERIFY(panel.stateText().contains(QStringLiteral("Redis unreachable:")));
    QVERIFY(panel.stateText().contains(QStringLiteral("Connection refused")));
    QVERIFY(!panel.stateText().contains(QStringLiteral("hunter2")));
}

void TestUiMainWindow::settingsNeverStorePasswords()
{
    const QString ini = m_dir.filePath(QStringLiteral("p.ini"));
    {
        Settings settings(ini);
        ConnectionProfile p;
        p.configPath = kSample;
        p.postgresUrl = QStringLiteral("postgresql://ops:s3cretPG@db.internal:5432/app");
        p.redisUrl = QStringLiteral("redis://:s3cretRedis@cache.internal:6379/0");
        p.postgresPassword = QStringLiteral("typedPG");
        p.redisPassword = QStringLiteral("typedRedis");
        p.save(settings);
        settings.setAutoRefreshSeconds(120);
    }
    QFile f(ini);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray raw = f.readAll();
    for (const char *secret : {"s3cretPG", "s3cretRedis", "typedPG", "typedRedis"})
        QVERIFY2(!raw.contains(secret), raw.constData());
    Settings settings(ini);
    QCOMPARE(settings.postgresUrl(), QStringLiteral("postgresql://ops@db.internal:5432/app"));
    QCOMPARE(settings.redisUrl(), QStringLiteral("redis://cache.internal:6379/0"));
    QCOMPARE(settings.configPath(), kSample);
    QCOMPARE(settings.autoRefreshSeconds(), std::optional<int>(120));
    const ConnectionProfile back = ConnectionProfile::fromSettings(settings);
    QVERIFY(back.postgresPassword.isEmpty());
}

void TestUiMainWindow::profilePasswordsComeFromMemoryOrEnvironment()
{
    ConnectionProfile p;
    p.configPath = kSample;
    p.postgresUrl = QStringLiteral("postgresql://ops@db.internal:5432/app");
    QProcessEnvironment env;
    env.insert(QStringLiteral("RECLAIM_PG_URL"),
               QStringLiteral("postgresql://ops:fromEnv@elsewhere:5432/app"));
    auto config = loadProfile(p, env);
    QVERIFY2(config.hasValue(), config ? "" : qPrintable(config.error()));
    QCOMPARE(config->postgres.host, QStringLiteral("db.internal")); // the profile's URL wins
    QCOMPARE(config->postgres.password, QStringLiteral("fromEnv"));
    QVERIFY(postgresPasswordSource(p, env).contains(QStringLiteral("RECLAIM_PG_URL")));

    p.postgresPassword = QStringLiteral("typed");
    config = loadProfile(p, env);
    QCOMPARE(config->postgres.password, QStringLiteral("typed"));
    QVERIFY(postgresPasswordSource(p, env).contains(QStringLiteral("memory")));

    p.configPath.clear();
    QVERIFY(!loadProfile(p, env).hasValue());
}

void TestUiMainWindow::dialogMovesPasswordOutOfTheUrl()
{
    ConnectionProfile p;
    p.configPath = kSample;
    ConnectionDialog dialog(p, nullptr, QProcessEnvironment());
    auto *url = dialog.findChild<QLineEdit *>(QStringLiteral("postgresUrl"));
    QVERIFY(url);
    url->setText(QStringLiteral("postgresql://ops:pasted@db.internal:5432/app"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.profile().postgresUrl, QStringLiteral("postgresql://ops@db.internal:5432/app"));
    QCOMPARE(dialog.profile().postgresPassword, QStringLiteral("pasted"));

    // A broken file keeps the dialog open and says why, inline.
    auto *config = dialog.findChild<QLineEdit *>(QStringLiteral("configPath"));
    config->setText(QStringLiteral("/nonexistent/reclaim.json"));
    dialog.setResult(QDialog::Rejected);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("problem"))
                ->text()
                .contains(QStringLiteral("does not exist")));
}

QTEST_MAIN(TestUiMainWindow)
#include "test_ui_mainwindow.moc"
