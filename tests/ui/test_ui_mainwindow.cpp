// The main window without servers: a configuration that does not load, servers that cannot be
// reached, what may and may not be approved, read-only mode, the lock panel, and where
// passwords go (never into settings). Laid out at a first start's 1400x860 and a laptop's
// 1024x640: the actions' result and precondition in view, no label cut, chart labels whole; the
// stale marking after a skipped run, which holds approving; the keyboard reaching every command;
// the export of the candidates shown.
#include "actionsmodel.h"
#include "actionspanel.h"
#include "auditview.h"
#include "banner.h"
#include "candidatefilterproxy.h"
#include "candidatespanel.h"
#include "candidatetablemodel.h"
#include "connectiondialog.h"
#include "connectionprofile.h"
#include "consolesession.h"
#include "counttext.h"
#include "detailspanel.h"
#include "domain/locktoken.h"
#include "domainlistmodel.h"
#include "fencing/locklease.h"
#include "layoutchecks.h"
#include "lockpanel.h"
#include "mainwindow.h"
#include "runchart.h"
#include "settings.h"
#include "support/testcerts.h"
#include "syntheticreport.h"
#include "verdictstyle.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
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

// An incident shaped like the seeded one: ids of realistic length in domains with long names,
// every verdict, actions of both kinds.
QList<CandidateVerdict> realisticIncident()
{
    QList<CandidateVerdict> out;
    const QString domains[] = {u"narration"_s, u"document"_s, u"video"_s, u"slide"_s};
    const Verdict verdicts[] = {Verdict::Absent, Verdict::Absent, Verdict::Scheduled,
                                Verdict::Unknown};
    for (int i = 0; i < 16; ++i)
        out << syntheticCandidate(domains[i % 4],
                                  QStringLiteral("%1j_qx3njk%2tio40")
                                      .arg(domains[i % 4].front())
                                      .arg(i, 2, 10, QLatin1Char('0')),
                                  verdicts[(i / 4) % 4], 90 + 37 * i);
    return out;
}

// A report of a run that could not start because Redis did not answer.
RunReport skippedRun(const QDateTime &at)
{
    RunReport r;
    r.runId = QStringLiteral("skipped");
    r.trigger = QStringLiteral("console");
    r.outcome = RunReport::Outcome::SkippedUnreachable;
    r.startedAt = at;
    r.finishedAt = at.addMSecs(2000);
    r.lock.error = QStringLiteral("connect: Connection refused (redis://:hunter2@10.0.0.5:6379)");
    return r;
}

// Lets pending layout requests run, as the event loop would before the next paint.
void settle()
{
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
}

// Every action in the menus (submenus included).
QList<QAction *> menuActions(const QMenuBar *bar)
{
    QList<QAction *> out;
    QList<QMenu *> menus;
    for (QAction *a : bar->actions())
        if (a->menu())
            menus << a->menu();
    while (!menus.isEmpty()) {
        QMenu *menu = menus.takeFirst();
        emit menu->aboutToShow(); // menus filled when they open
        for (QAction *a : menu->actions()) {
            if (a->isSeparator())
                continue;
            if (a->menu())
                menus << a->menu();
            else
                out << a;
        }
    }
    return out;
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
    void readableAtEverySize_data();
    void readableAtEverySize();
    void rareLongResultFarDownTheListIsNotCut();
    void staleRowsAfterASkippedRunHoldApproval();
    void lockPanelDecodesHolderAndCountsDown();
    void lockPanelDuringTheConsolesOwnRun();
    void everyCommandHasAShortcutInAMenu();
    void exportWritesTheCandidatesShown();
    void healthyCandidatesNotListedAreSaidUnderTheTable();
    void theSelectedCandidatesActionIsWholeOnScreen();
    void settingsNeverStorePasswords();
    void profilePasswordsComeFromMemoryOrEnvironment();
    void profileCarriesRedisTlsFilesAndAnAclUser();
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

    // Reject (R) goes to the database first: while it is on its way the action reads
    // "rejecting…" and can be neither approved nor rejected again. PostgreSQL is unreachable
    // here, so the rejection is not recorded: the action stays awaiting approval and the banner
    // says why, naming the server.
    QSignalSpy rejections(&window, &MainWindow::rejectionShown);
    QTest::keyClick(window.candidateView(), Qt::Key_R);
    QVERIFY(window.actionsModel()->isRecording(QStringLiteral("slide/a1")));
    const int row = window.actionsModel()->rowOf(QStringLiteral("slide/a1"));
    QCOMPARE(window.actionsModel()->index(row, ActionsModel::ResultColumn).data().toString(),
             QStringLiteral("rejecting\u2026"));
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(!window.rejectAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(rejections.count(), 1, 20000);
    QVERIFY(!rejections.first().at(1).toString().isEmpty());
    QVERIFY(!window.actionsModel()->isRecording(QStringLiteral("slide/a1")));
    QCOMPARE(window.actionsModel()->actionFor(QStringLiteral("slide/a1"))->result,
             ActionResult::Pending);
    QVERIFY2(window.banner()->text().contains(QStringLiteral("was not recorded")) &&
                 window.banner()->text().contains(QStringLiteral("127.0.0.1:1")),
             qPrintable(window.banner()->text()));
    QVERIFY(window.rejectAction()->isEnabled());
    QVERIFY(!window.undoRejectionAction()->isEnabled());
    QCOMPARE(window.session()->approvalsInFlight(), 0);

    // A rejection the planner reports (recorded earlier, row unchanged) is not approvable and
    // can be undone (Ctrl+Z is enabled); it says who rejected it.
    RunReport rejected = syntheticReport(oneOfEach());
    for (Action &a : rejected.actions) {
        a.result = ActionResult::Rejected;
        a.rejectedBy = QStringLiteral("alice@ops1");
        a.executedAt = QDateTime::currentDateTimeUtc();
    }
    window.showReport(rejected);
    QVERIFY(window.selectCandidate(QStringLiteral("slide/a1")));
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY(!window.rejectAction()->isEnabled());
    QVERIFY(window.undoRejectionAction()->isEnabled());
    QVERIFY2(window.approvalBlocker().startsWith(QStringLiteral("Rejected by alice@ops1")),
             qPrintable(window.approvalBlocker()));
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

void TestUiMainWindow::readableAtEverySize_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("first start 1400x860") << QSize(1400, 860);
    QTest::newRow("laptop 1024x640") << QSize(1024, 640);
}

void TestUiMainWindow::readableAtEverySize()
{
    QFETCH(QSize, size);
    Settings settings(m_dir.filePath(QStringLiteral("size.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Twelve runs in the chart, the last with this incident; another runner's lock, decoded.
    const QDateTime last = QDateTime::currentDateTimeUtc().addSecs(-30);
    for (int i = 11; i > 0; --i)
        window.runChart()->addRun(syntheticReport(realisticIncident(), last.addSecs(-300LL * i)));
    const RunReport newest = syntheticReport(realisticIncident(), last);
    window.showReport(newest);
    LockStatus other;
    other.reachable = true;
    other.holder =
        QStringLiteral("reclaim;host=other-runner;pid=4242;since=%1;nonce=ab")
            .arg(QDateTime::currentDateTimeUtc().addSecs(-754).toString(Qt::ISODateWithMs));
    other.ttlMs = 600000;
    other.generation = 41;
    window.showLockStatus(other);
    // The action with the longest result text selected, so its pane is as tall as it gets.
    Action stale = syntheticAction(realisticIncident().at(0), false);
    stale.result = ActionResult::Stale;
    stale.resultDetail = QStringLiteral("0 rows: the row moved on after it was read");
    stale.executedAt = QDateTime::currentDateTimeUtc();
    window.showActionResult(stale);
    QVERIFY(window.selectCandidate(stale.id));
    settle();

    // The conditional write's precondition and result are in view, whole, with the action kind.
    QTableView *actions = window.actionsPanel()->view();
    QCOMPARE(actions->model()->rowCount(), 8);
    QStringList problems =
        columnsNotInView(actions, {ActionsModel::ResultColumn, ActionsModel::KindColumn,
                                   ActionsModel::PreconditionColumn});
    QCOMPARE(actions->model()->index(0, ActionsModel::ResultColumn).data().toString(),
             QStringLiteral("stale"));
    // The domains table shows its names and counts whole.
    problems << columnsNotInView(window.domainView(),
                                 {DomainListModel::NameColumn, DomainListModel::UnknownColumn,
                                  DomainListModel::AbsentColumn, DomainListModel::ScheduledColumn});
    // No label is cut or squeezed under its neighbour; the lock's lines and the title of the
    // actions are whole; no chart label is elided.
    problems << clippedLabels(&window);
    for (const QString &elided : elidedLabels(window.lockPanel()))
        problems << QStringLiteral("lock panel line elided: ") + elided;
    for (const QString &elided : elidedChartLabels(&window))
        problems << QStringLiteral("chart label elided: ") + elided;
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    QCOMPARE(window.lockPanel()->holderLines().value(0), QStringLiteral("other-runner"));
    QCOMPARE(window.lockPanel()->holderLines().value(1), QStringLiteral("pid 4242"));
    QVERIFY2(window.lockPanel()->holderLines().value(2).contains(QStringLiteral("12 min ago")),
             qPrintable(window.lockPanel()->holderLines().value(2)));
    // The chart shows the latest runs it has room for, the newest last, each label whole.
    const QStringList labels = window.runChart()->shownLabels();
    QVERIFY(!labels.isEmpty());
    QCOMPARE(labels.size(), window.runChart()->shownCount());
    // A run is labelled by its start, 250 ms before `last` here: in the minute before it, at times.
    QCOMPARE(labels.last(), newest.startedAt.toLocalTime().toString(QStringLiteral("HH:mm")));
    // The pane under the table says the selected action in full: result, detail, precondition.
    const QString pane = window.actionsPanel()->selectedText();
    QVERIFY2(pane.contains(QStringLiteral("stale (0 rows)")) &&
                 pane.contains(QStringLiteral("the row moved on")) &&
                 pane.contains(stale.precondition.updatedAtText),
             qPrintable(pane));
    QVERIFY(window.actionsPanel()->title().startsWith(QStringLiteral("Actions: 7 awaiting")));

    const QString shot = QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/unit-%1x%2.png")
                             .arg(size.width())
                             .arg(size.height());
    QDir().mkpath(QFileInfo(shot).absolutePath());
    QVERIFY(window.grab().save(shot, "PNG")); // for people to look at
}

// The actions table measures a column from the rows on screen and one row per shape of its text,
// not from every row: one rejection by an operator with a long name, 2,000 rows down among
// thousands of short results, still gets a result column wide enough for it.
void TestUiMainWindow::rareLongResultFarDownTheListIsNotCut()
{
    Settings settings(m_dir.filePath(QStringLiteral("rare.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    window.resize(1400, 860);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const RunReport report = syntheticReport(manyCandidates(9000), QDateTime::currentDateTimeUtc());
    QVERIFY(report.actions.size() > 2500);
    window.showReport(report);
    settle();
    Action rejected = report.actions.at(2000);
    rejected.result = ActionResult::Rejected;
    rejected.rejectedBy = QStringLiteral("night-shift-escalation-operator@ops-bastion-3");
    rejected.executedAt = QDateTime::currentDateTimeUtc();
    window.showActionResult(rejected);
    settle();

    QTableView *actions = window.actionsPanel()->view();
    const int row = window.actionsModel()->rowOf(rejected.id);
    QVERIFY(row >= 0);
    const QString shown =
        actions->model()->index(row, ActionsModel::ResultColumn).data().toString();
    QCOMPARE(shown, QStringLiteral("rejected by night-shift-escalation-operator"));
    // Far from the rows on screen: only the model's samples can have found it.
    QVERIFY(actions->rowAt(actions->viewport()->height() - 1) < row);
    const QStringList problems = columnsNotInView(actions, {ActionsModel::ResultColumn});
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestUiMainWindow::staleRowsAfterASkippedRunHoldApproval()
{
    Settings settings(m_dir.filePath(QStringLiteral("stale.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    window.resize(1400, 860);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window)); // window shortcuts (A) need an active window
    QSignalSpy reports(&window, &MainWindow::reportShown);
    window.start();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 20000); // the failed real run, out of the way
    QVERIFY(!window.freshness().stale()); // nothing was shown before it: nothing is stale

    const QDateTime shown = QDateTime::currentDateTimeUtc().addSecs(-12 * 60);
    window.showReport(syntheticReport(oneOfEach(), shown));
    QVERIFY(window.selectCandidate(QStringLiteral("slide/a1")));
    QVERIFY2(window.approveAction()->isEnabled(), qPrintable(window.approvalBlocker()));
    const QModelIndex verdict = window.candidateModel()->index(
        window.candidateModel()->indexOfKey(QStringLiteral("slide/a1")),
        CandidateTableModel::VerdictColumn);
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT"));

    // Redis goes down: the next run is skipped. The earlier run's rows stay, marked stale.
    window.showReport(skippedRun(QDateTime::currentDateTimeUtc()));
    QVERIFY(window.freshness().stale());
    QCOMPARE(window.candidateModel()->rowCount(), 3);
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT \u00b7 stale"));
    QCOMPARE(verdict.data(Qt::ForegroundRole).value<QColor>(), staleColor());
    QVERIFY(verdict.data(Qt::ToolTipRole).toString().contains(QStringLiteral("12 min ago")));
    auto *panel = window.findChild<CandidatesPanel *>();
    QVERIFY(panel);
    QVERIFY(panel->staleNoteLabel()->isVisible());
    QVERIFY2(panel->staleNote().contains(QStringLiteral("12 min ago")) &&
                 panel->staleNote().contains(QStringLiteral("Redis is unreachable")),
             qPrintable(panel->staleNote()));
    QVERIFY(!panel->staleNote().contains(QStringLiteral("hunter2")));
    QVERIFY(window.domainView()->parentWidget()->findChild<QLabel *>()->text().contains(
        QStringLiteral("stale")));

    // Approving is held: the action says so, the button is off, and neither the button's action
    // nor its shortcut sends anything to the worker.
    QVERIFY(!window.approveAction()->isEnabled());
    QVERIFY2(window.approvalBlocker().startsWith(QStringLiteral("On hold")),
             qPrintable(window.approvalBlocker()));
    const QModelIndex result = window.actionsModel()->index(
        window.actionsModel()->rowOf(QStringLiteral("slide/a1")), ActionsModel::ResultColumn);
    QCOMPARE(result.data().toString(), QStringLiteral("on hold"));
    window.approveAction()->trigger();
    QTest::keyClick(window.candidateView(), Qt::Key_A);
    QCOMPARE(window.session()->approvalsInFlight(), 0);
    QVERIFY(!window.actionsModel()->isApproving(QStringLiteral("slide/a1")));
    QCOMPARE(window.actionsModel()->actionFor(QStringLiteral("slide/a1"))->result,
             ActionResult::Pending);
    settle();
    QDir().mkpath(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots"));
    QVERIFY(window.grab().save(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/unit-stale.png")));
    // The longer texts of an outage (the hold, the stale note, a skipped run in the chart) fit.
    QStringList problems = clippedLabels(&window);
    for (const QString &elided : elidedChartLabels(&window))
        problems << QStringLiteral("chart label elided: ") + elided;
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    // A run completes again: the marking goes, approving comes back.
    window.showReport(syntheticReport(oneOfEach(), QDateTime::currentDateTimeUtc()));
    QVERIFY(!window.freshness().stale());
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT"));
    QVERIFY(!panel->staleNoteLabel()->isVisible());
    QVERIFY(window.selectCandidate(QStringLiteral("slide/a1")));
    QVERIFY2(window.approveAction()->isEnabled(), qPrintable(window.approvalBlocker()));
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
    QCOMPARE(panel.holderLines().value(0), QStringLiteral("worker-7"));
    QCOMPARE(panel.holderLines().value(1), QStringLiteral("pid 4242"));
    QVERIFY2(panel.holderLines().value(2).startsWith(QStringLiteral("2024-05-01")),
             qPrintable(panel.holderLines().value(2))); // more than a day ago: date and time
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
    QVERIFY(panel.stateText().contains(QStringLiteral("Redis unreachable")));
    QVERIFY(panel.checkedText().contains(QStringLiteral("Connection refused")));
    QVERIFY(!panel.checkedText().contains(QStringLiteral("hunter2")));
    QVERIFY(!panel.stateText().contains(QStringLiteral("hunter2")));
}

void TestUiMainWindow::lockPanelDuringTheConsolesOwnRun()
{
    LockPanel panel;
    LockStatus free;
    free.reachable = true;
    free.generation = 3;
    panel.setStatus(free);
    QVERIFY(panel.stateText().contains(QStringLiteral("Free")));
    // The console's run starts: the status read before it is not shown as current.
    panel.setRunInFlight(true);
    QVERIFY2(panel.stateText().contains(QStringLiteral("Acquiring")) &&
                 !panel.stateText().contains(QStringLiteral("Free")),
             qPrintable(panel.stateText()));
    QVERIFY(panel.checkedText().contains(QStringLiteral("before the run")));
    panel.setRunInFlight(false);
    QVERIFY(panel.stateText().contains(QStringLiteral("Free")));
}

void TestUiMainWindow::everyCommandHasAShortcutInAMenu()
{
    Settings settings(m_dir.filePath(QStringLiteral("keys.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.showReport(syntheticReport(oneOfEach()));

    // Every command in the menus shows a shortcut, and no two share one. The auto-refresh
    // choices are radio items of a submenu, reached with the arrow keys.
    QSet<QString> seen;
    int radios = 0;
    for (QAction *a : menuActions(window.menuBar())) {
        if (a->actionGroup()) {
            ++radios;
            continue;
        }
        QVERIFY2(!a->shortcut().isEmpty(), qPrintable(a->text()));
        for (const QKeySequence &k : a->shortcuts()) {
            const QString key = k.toString();
            QVERIFY2(!seen.contains(key), qPrintable(key));
            seen.insert(key);
        }
    }
    QVERIFY(radios >= 7);
    for (const char *key : {"A", "R", "F5", "Ctrl+E", "Ctrl+F", "Ctrl+1", "Ctrl+4", "Ctrl+Shift+U"})
        QVERIFY2(seen.contains(QString::fromLatin1(key)), key);

    // The panels are reached by number; the verdict filters by their shortcuts.
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    QTRY_VERIFY(window.actionsPanel()->view()->hasFocus());
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY(window.domainView()->hasFocus());
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY(window.candidateView()->hasFocus());
    QCOMPARE(window.candidateProxy()->rowCount(), 3);
    QTest::keyClick(window.candidateView(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(window.candidateProxy()->rowCount(), 2); // SCHEDULED hidden
    QTest::keyClick(window.candidateView(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(window.candidateProxy()->rowCount(), 3);
    QTest::keyClick(window.candidateView(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(qobject_cast<QLineEdit *>(QApplication::focusWidget()));
}

// A mass run lists the first run.scheduledListed healthy candidates and counts the rest: the
// verdict button counts them all, and the line beside the filter says why the table has fewer.
void TestUiMainWindow::healthyCandidatesNotListedAreSaidUnderTheTable()
{
    Settings settings(m_dir.filePath(QStringLiteral("unlisted.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    RunReport report = syntheticReport(oneOfEach());
    for (int i = 0; i < 2500; ++i)
        report.domains[0].unlistedScheduled.insert(QStringLiteral("h%1").arg(i));
    window.showReport(report);
    QCOMPARE(window.candidateModel()->rowCount(), 3);
    QStringList texts;
    for (const QLabel *label : window.findChildren<QLabel *>())
        texts << label->text();
    const QString note = texts.filter(QStringLiteral("shown")).value(0);
    QVERIFY2(note.contains(QStringLiteral("not listed")) &&
                 note.contains(QStringLiteral("+%1 not listed").arg(countText(2500))),
             qPrintable(texts.join(QLatin1Char('|'))));
    // On the smallest window the console supports the note is whole, the filter still usable.
    window.resize(1024, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QStringList clipped = clippedLabels(&window);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
    if (qEnvironmentVariableIsSet("RECLAIM_UNIT_SCREENSHOT"))
        QVERIFY(window.grab().save(qEnvironmentVariable("RECLAIM_UNIT_SCREENSHOT"), "PNG"));
    bool counted = false;
    for (const QAction *a : window.findChildren<QAction *>())
        counted = counted || a->iconText() == QStringLiteral("Scheduled ") + countText(2501);
    QVERIFY(counted);
    // Looking such a row up says what the run saw of it, not "not a candidate".
    AuditFilter byRow;
    byRow.rowId = QStringLiteral("h7");
    const AuditView *audit = window.openAuditHistory(byRow);
    QVERIFY(audit);
    QVERIFY2(audit->jobNote().contains(QStringLiteral("SCHEDULED")) &&
                 audit->jobNote().contains(QStringLiteral("counted, not listed")),
             qPrintable(audit->jobNote()));

    // The next report has none beyond the limit: the note goes.
    window.showReport(syntheticReport(oneOfEach()));
    texts.clear();
    for (const QLabel *label : window.findChildren<QLabel *>())
        texts << label->text();
    const QString after = texts.filter(QStringLiteral("shown")).value(0);
    QVERIFY2(after.contains(QStringLiteral("3 of 3 shown")) &&
                 !after.contains(QStringLiteral("not listed")),
             qPrintable(after));
}

// Selecting a candidate selects its action in the actions table, and that row is whole on
// screen once the window has laid itself out again (the selected action's text under the table
// grows by a line or two): never cut in half on the table's lower edge.
void TestUiMainWindow::theSelectedCandidatesActionIsWholeOnScreen()
{
    Settings settings(m_dir.filePath(QStringLiteral("whole.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    window.resize(1024, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const RunReport report = syntheticReport(manyCandidates(600), QDateTime::currentDateTimeUtc());
    window.showReport(report);
    settle();
    QTableView *actions = window.actionsPanel()->view();
    for (const qsizetype at : {qsizetype(40), qsizetype(41), report.actions.size() / 2}) {
        const Action &a = report.actions.at(at);
        QVERIFY(window.selectCandidate(a.domain + QLatin1Char('/') + a.rowId));
        settle();
        const int row = window.actionsModel()->rowOf(a.id);
        QVERIFY(row >= 0);
        const QModelIndex idx = actions->model()->index(row, 0);
        QVERIFY(actions->selectionModel()->isRowSelected(row, {}));
        const QRect shown = actions->visualRect(idx);
        QVERIFY2(actions->viewport()->rect().contains(shown),
                 qPrintable(QStringLiteral("action row %1 at y %2..%3, the table shows 0..%4")
                                .arg(row)
                                .arg(shown.top())
                                .arg(shown.bottom())
                                .arg(actions->viewport()->height())));
    }
}

void TestUiMainWindow::exportWritesTheCandidatesShown()
{
    Settings settings(m_dir.filePath(QStringLiteral("export.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    MainWindow window(settings, unreachableProfile(), options);
    QList<CandidateVerdict> candidates = oneOfEach();
    // An error text that a spreadsheet would run as a formula.
    candidates[0].evidence[0].error = QStringLiteral("=HYPERLINK(\"x\") -ERR, \"quoted\"");
    candidates[0].unknownReason = *candidates[0].evidence[0].error;
    window.showReport(syntheticReport(candidates));

    const QString csvPath = m_dir.filePath(QStringLiteral("out.csv"));
    QString error;
    QVERIFY2(window.exportCandidates(csvPath, &error), qPrintable(error));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.size(), 5); // header, three rows, and the empty rest after the last CRLF
    QVERIFY(lines.at(0).startsWith("domain,id,type,dbStatus,updatedAt,ageSeconds,verdict"));
    const QByteArray unknownLine = lines.at(1).contains("slide,u1,")   ? lines.at(1)
                                   : lines.at(2).contains("slide,u1,") ? lines.at(2)
                                                                       : lines.at(3);
    QVERIFY2(unknownLine.contains(",UNKNOWN,"), unknownLine.constData());
    // Quoted per RFC 4180; no cell starts with a formula character.
    QVERIFY2(unknownLine.contains("\"\"quoted\"\""), unknownLine.constData());
    for (const QByteArray &line : lines)
        QVERIFY2(!line.contains(",=") && !line.contains(",\"="), line.constData());

    // Only what the filter leaves, as JSON.
    window.candidateProxy()->setVerdictShown(Verdict::Scheduled, false);
    const QString jsonPath = m_dir.filePath(QStringLiteral("out.JSON"));
    QVERIFY2(window.exportCandidates(jsonPath, &error), qPrintable(error));
    QFile json(jsonPath);
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(root.value(QStringLiteral("count")).toInt(), 2);
    const QJsonArray rows = root.value(QStringLiteral("candidates")).toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(root.value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString(),
             QStringLiteral("synthetic"));
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        QVERIFY(o.value(QStringLiteral("verdict")).toString() != QStringLiteral("SCHEDULED"));
        if (o.value(QStringLiteral("id")).toString() == QStringLiteral("a1")) {
            const QJsonObject action = o.value(QStringLiteral("action")).toObject();
            QCOMPARE(action.value(QStringLiteral("kind")).toString(), QStringLiteral("FAIL"));
            QCOMPARE(action.value(QStringLiteral("precondition"))
                         .toObject()
                         .value(QStringLiteral("generation"))
                         .toInt(),
                     7);
        }
    }

    // A file that cannot be written: false, the path named, nothing half-written left behind.
    const QString bad = m_dir.filePath(QStringLiteral("no-such-dir/out.csv"));
    QVERIFY(!window.exportCandidates(bad, &error));
    QVERIFY2(error.contains(bad), qPrintable(error));
    QVERIFY(!QFile::exists(bad));
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

// A rediss:// profile: the TLS paths are remembered, the ACL user's password is typed each start
// (never stored), and a user with no password is refused rather than run as the default user.
void TestUiMainWindow::profileCarriesRedisTlsFilesAndAnAclUser()
{
    QTemporaryDir certDir;
    test::TestCerts certs;
    QVERIFY2(certs.make(certDir.path()), qPrintable(certs.error()));
    ConnectionProfile p;
    p.configPath = kSample;
    p.redisUrl = QStringLiteral("rediss://reclaim@cache.internal:6380/0");
    p.redisTlsCa = certs.ca();
    p.redisTlsCert = certs.clientCert();
    p.redisTlsKey = certs.clientKey();
    p.redisTlsServerName = QStringLiteral("redis.internal");
    const QProcessEnvironment env;

    auto noPassword = loadProfile(p, env);
    QVERIFY(!noPassword.hasValue());
    QVERIFY2(
        noPassword.error().contains(QStringLiteral("names user 'reclaim' but no Redis password")),
        qPrintable(noPassword.error()));

    p.redisPassword = QStringLiteral("typedTlsSecret");
    auto config = loadProfile(p, env);
    QVERIFY2(config.hasValue(), config ? "" : qPrintable(config.error()));
    QVERIFY(config->redis.tls.enabled);
    QCOMPARE(config->redis.user, QStringLiteral("reclaim"));
    QCOMPARE(config->redis.password, QStringLiteral("typedTlsSecret"));
    QCOMPARE(config->redis.tls.caFile, certs.ca());
    QCOMPARE(config->redis.tls.certFile, certs.clientCert());
    QCOMPARE(config->redis.tls.keyFile, certs.clientKey());
    QCOMPARE(config->redis.tls.serverName, QStringLiteral("redis.internal"));

    const QString ini = m_dir.filePath(QStringLiteral("tls.ini"));
    {
        Settings settings(ini);
        p.save(settings);
    }
    QFile f(ini);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray raw = f.readAll();
    QVERIFY2(!raw.contains("typedTlsSecret"), raw.constData());
    Settings settings(ini);
    const ConnectionProfile back = ConnectionProfile::fromSettings(settings);
    QCOMPARE(back.redisUrl, p.redisUrl);
    QCOMPARE(back.redisTlsCa, p.redisTlsCa);
    QCOMPARE(back.redisTlsCert, p.redisTlsCert);
    QCOMPARE(back.redisTlsKey, p.redisTlsKey);
    QCOMPARE(back.redisTlsServerName, p.redisTlsServerName);
    QVERIFY(back.redisPassword.isEmpty());

    ConnectionProfile missing = p;
    missing.redisTlsCa = certDir.filePath(QStringLiteral("gone.pem"));
    auto gone = loadProfile(missing, env);
    QVERIFY(!gone.hasValue());
    QVERIFY2(gone.error().contains(QStringLiteral("TLS ca file")) &&
                 gone.error().contains(missing.redisTlsCa),
             qPrintable(gone.error()));

    ConnectionProfile plain = p;
    plain.redisUrl = QStringLiteral("redis://reclaim@cache.internal:6379/0");
    auto notTls = loadProfile(plain, env);
    QVERIFY(!notTls.hasValue());
    QVERIFY2(notTls.error().contains(QStringLiteral("not rediss://")), qPrintable(notTls.error()));
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
