// "Held for approval" against real servers (#29): the real `reclaim --daemon` holds FAIL actions
// (the image domain's policy says fail: approve) and a whole domain whose queue name is misspelt
// (the guard: no trace in Redis); its metrics say so. The console lists them, grouped by domain
// and reason; the console and the command line each approve one, and each then sees the other's
// approval ("already executed by ..."), nothing run twice; a whole group is approved behind a
// confirmation that states the count, the kinds and the reason; a misspelt domain's actions are
// rejected with a reason and nothing of it is written. Screenshots go to build/screenshots (run
// under Xvfb with -platform xcb to look at them).
#include "actionsmodel.h"
#include "config/configloader.h"
#include "config/connectionurl.h"
#include "consolesession.h"
#include "daemonprocess.h"
#include "heldactionsmodel.h"
#include "heldconfirmdialog.h"
#include "heldpanel.h"
#include "mainwindow.h"
#include "settings.h"
#include "support/reclaimprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QAction>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <csignal>

using namespace reclaim;
using namespace reclaim::ui;
using namespace reclaim::test;

namespace {

constexpr int kImages = 6;
constexpr int kDocuments = 3;

QString imageRow(int i)
{
    return QStringLiteral("uh_img_%1").arg(i);
}

QString documentRow(int i)
{
    return QStringLiteral("uh_doc_%1").arg(i);
}

} // namespace

class TestUiHeld : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void theDaemonHoldsAndSaysSo();
    void theConsoleListsThemByDomainAndReason();
    void consoleAndCommandLineEachApproveOneAndSeeTheOther();
    void aHeldActionApprovedFromTheCandidatesIsClaimedAsHeld();
    void aGroupIsApprovedBehindAConfirmation();
    void aMisspeltDomainIsRejectedAndNothingOfItIsWritten();
    void cleanupTestCase();

private:
    int count(const QString &statement, const QVariantList &args = {});
    HeldDecision waitForDecision(qint64 id);
    Ran reclaimRun(QStringList args)
    {
        return runReclaim(m_env, QStringLiteral(RECLAIM_EXECUTABLE),
                          args << QStringLiteral("--config") << m_config);
    }
    void screenshot(QWidget *w, const QString &name, QWidget *dialog = nullptr);

    SandboxEnv m_env;
    QTemporaryDir m_dir;
    QString m_config;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QList<HeldDecision> m_decisions;
};

int TestUiHeld::count(const QString &statement, const QVariantList &args)
{
    const auto r = sql(m_env, statement, args);
    return r.isEmpty() ? -1 : r.first().first().toInt();
}

HeldDecision TestUiHeld::waitForDecision(qint64 id)
{
    const auto found = [&]() -> std::optional<HeldDecision> {
        for (const HeldDecision &d : m_decisions)
            if (d.id == id)
                return d;
        return std::nullopt;
    };
    QElapsedTimer t;
    t.start();
    while (!found() && t.elapsed() < 60000)
        QTest::qWait(50);
    return found().value_or(HeldDecision{});
}

// The window as on screen; with `dialog`, the dialog drawn over it where it shows (grab() takes
// one window at a time, and the offscreen platform has no screen to capture).
void TestUiHeld::screenshot(QWidget *w, const QString &name, QWidget *dialog)
{
    QDir().mkpath(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots"));
    for (int i = 0; i < 3; ++i)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const QString path = QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/%1.png").arg(name);
    QPixmap shot = w->grab();
    if (dialog) {
        const QPixmap over = dialog->grab();
        QPainter p(&shot);
        const QPoint at((shot.width() - over.width()) / 2, (shot.height() - over.height()) / 3);
        p.fillRect(QRect(at, over.size()).adjusted(-1, -1, 1, 1), Qt::darkGray);
        p.drawPixmap(at, over);
    }
    QVERIFY(shot.save(path, "PNG"));
    qInfo("screenshot: %s", qPrintable(path));
}

void TestUiHeld::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    QVERIFY(m_dir.isValid());
    resetSandbox(m_env);
    migrate(m_env);
    // Image jobs QUEUED two hours ago whose queue entries are gone: FAILs (no restore rule),
    // held by the image domain's policy. Document jobs alike, in a domain whose queue name is
    // misspelt in the configuration: the guard holds the whole domain.
    for (int i = 0; i < kImages; ++i) {
        sql(m_env, QStringLiteral("INSERT INTO \"Image\" (id, status) VALUES (?, 'PROCESSING')"),
            {QStringLiteral("uh_im_%1").arg(i)});
        sql(m_env,
            QStringLiteral("INSERT INTO \"ImageJob\" (id, \"imageId\", status, \"updatedAt\") "
                           "VALUES (?, ?, 'QUEUED', now() - interval '2 hours')"),
            {imageRow(i), QStringLiteral("uh_im_%1").arg(i)});
    }
    for (int i = 0; i < kDocuments; ++i) {
        sql(m_env, QStringLiteral("INSERT INTO \"Document\" (id, status) VALUES (?, 'PROCESSING')"),
            {QStringLiteral("uh_dc_%1").arg(i)});
        sql(m_env,
            QStringLiteral("INSERT INTO \"DocumentJob\" (id, \"documentId\", type, status, "
                           "\"updatedAt\") VALUES (?, ?, 'PARSE', 'QUEUED', now() - interval '2 "
                           "hours')"),
            {documentRow(i), QStringLiteral("uh_dc_%1").arg(i)});
    }

    QFile in(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray kept;
    for (const QJsonValue &d : root.value(QStringLiteral("domains")).toArray()) {
        QJsonObject o = d.toObject();
        const QString name = o.value(QStringLiteral("name")).toString();
        if (name == QLatin1String("image"))
            o.insert(QStringLiteral("policy"),
                     QJsonObject{{QStringLiteral("fail"), QStringLiteral("approve")}});
        else if (name == QLatin1String("document"))
            o.insert(QStringLiteral("queues"), QJsonArray{QStringLiteral("document-prase")});
        else
            continue;
        kept.append(o);
    }
    root.insert(QStringLiteral("domains"), kept);
    m_config = m_dir.filePath(QStringLiteral("held.json"));
    QFile out(m_config);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(root).toJson());
    out.close();
    auto config = ConfigLoader::loadFile(m_config, m_env.processEnvironment());
    QVERIFY2(config.hasValue(), config ? "" : qPrintable(config.error().toString()));
    // The image queue exists as the app's Queue leaves it; "document-prase" never will.
    ReclaimConfig imageOnly = *config;
    imageOnly.domains.removeIf(
        [](const DomainConfig &d) { return d.name != QLatin1String("image"); });
    openAppQueues(m_env, imageOnly);
}

// The daemon's first run holds every action, executes nothing, and its metrics count them by
// domain, kind and reason; /readyz stays ready (holding is healthy).
void TestUiHeld::theDaemonHoldsAndSaysSo()
{
    QProcessEnvironment e;
    e.insert(QStringLiteral("RECLAIM_PG_URL"), m_env.pgUrl);
    e.insert(QStringLiteral("RECLAIM_REDIS_URL"), m_env.redisUrl);
    DaemonProcess daemon(daemonEnvironment(e));
    QVERIFY(daemon.start({QStringLiteral("--config"), m_config}));
    QVERIFY2(daemon.waitForEvent(QStringLiteral("run"), 60000),
             daemon.rawStderr().right(2000).constData());
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE state = "
                                  "'held' AND domain = 'image'")),
             kImages);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE state = "
                                  "'held' AND domain = 'document'")),
             kDocuments);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"ImageJob\" WHERE status = 'QUEUED'")),
             kImages);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.audit WHERE result = 'applied'")),
             0);
    bool warned = false;
    for (const QJsonObject &w : daemon.eventsOf(QStringLiteral("guard-held")))
        warned |= w.value(QStringLiteral("domain")).toString() == QLatin1String("document") &&
                  w.value(QStringLiteral("limit")).toString() == QLatin1String("no-trace");
    QVERIFY2(warned, daemon.rawStderr().right(3000).constData());

    const HttpResult metrics = httpGet(daemon.metricsPort(), QStringLiteral("/metrics"));
    QCOMPARE(metrics.status, 200);
    QCOMPARE(metricValue(metrics.body, QStringLiteral("reclaim_held_actions{domain=\"image\","
                                                      "kind=\"fail\",reason=\"policy\"}")),
             double(kImages));
    QCOMPARE(metricValue(metrics.body, QStringLiteral("reclaim_held_actions{domain=\"document\","
                                                      "kind=\"fail\",reason=\"no-trace\"}")),
             double(kDocuments));
    QVERIFY(
        metricValue(metrics.body, QStringLiteral("reclaim_guard_trips_total{domain=\"document\","
                                                 "limit=\"no-trace\"}")) >= 1);
    QCOMPARE(httpGet(daemon.metricsPort(), QStringLiteral("/readyz")).status, 200);
    daemon.sendSignal(SIGTERM);
    QVERIFY(daemon.waitForExit(30000));
}

void TestUiHeld::theConsoleListsThemByDomainAndReason()
{
    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("console.ini")));
    ConnectionProfile profile;
    profile.configPath = m_config;
    profile.postgresUrl = Settings::withoutPassword(m_env.pgUrl);
    profile.redisUrl = Settings::withoutPassword(m_env.redisUrl);
    profile.postgresPassword = parsePostgresUrl(m_env.pgUrl)->password;
    profile.redisPassword = parseRedisUrl(m_env.redisUrl)->password;
    MainWindow::Options options;
    options.rememberProfile = false;
    m_window = std::make_unique<MainWindow>(*m_settings, profile, options);
    m_window->resize(1400, 860);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    HeldPanel *held = m_window->heldPanel();
    connect(held, &HeldPanel::decided, this, [this](const HeldDecision &d) { m_decisions << d; });
    QSignalSpy listed(held, &HeldPanel::listed);
    m_window->start();
    m_window->session()->setAutoRefreshSeconds(0);
    // The console's own run re-plans the same actions: it confirms the entries, never doubles
    // them, and the listing after it shows every one.
    QTRY_VERIFY_WITH_TIMEOUT(
        listed.count() >= 1 && held->model()->waitingCount() == kImages + kDocuments, 120000);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action")),
             kImages + kDocuments);

    // Two groups, by domain and reason, each with its count and kinds.
    HeldActionsModel *model = held->model();
    QCOMPARE(model->rowCount(), 2);
    const QModelIndex document = model->index(0, 0);
    const QModelIndex image = model->index(1, 0);
    QVERIFY2(document.data().toString().contains(QStringLiteral("document")) &&
                 document.data().toString().contains(QStringLiteral("no trace")),
             qPrintable(document.data().toString()));
    QVERIFY2(image.data().toString().contains(QStringLiteral("policy")),
             qPrintable(image.data().toString()));
    QCOMPARE(model->rowCount(document), kDocuments);
    QCOMPARE(model->rowCount(image), kImages);
    QCOMPARE(model->index(1, HeldActionsModel::KindColumn).data().toString(),
             QStringLiteral("%1 fail").arg(kImages));
    QVERIFY2(model->summary(document).reason.contains(QStringLiteral("document-prase")),
             qPrintable(model->summary(document).reason));

    // The banner says what waits while the candidates' tab is shown; the tab says how many.
    const int tab = m_window->tabs()->indexOf(held);
    QCOMPARE(m_window->tabs()->tabText(tab),
             QStringLiteral("Held for approval (%1)").arg(kImages + kDocuments));
    screenshot(m_window.get(), QStringLiteral("held-banner"));
    m_window->showHeldActions(true);
    QCOMPARE(m_window->tabs()->currentWidget(), held);

    // The evidence of one action: why it was held, the row as seen, the run that held it.
    const QModelIndex first = model->index(0, 0, image);
    held->view()->setCurrentIndex(first);
    QVERIFY2(held->evidenceText().contains(QStringLiteral("fail actions of image")) &&
                 held->evidenceText().contains(QStringLiteral("QUEUED")),
             qPrintable(held->evidenceText()));
}

// The console approves one (A), the command line another; each then tries the other's and is
// told it is already executed, by whom; each ran once.
void TestUiHeld::consoleAndCommandLineEachApproveOneAndSeeTheOther()
{
    HeldPanel *held = m_window->heldPanel();
    HeldActionsModel *model = held->model();
    const QModelIndex image = model->index(1, 0);
    const qint64 mine = model->index(0, 0, image).data(HeldActionsModel::IdRole).toLongLong();
    const qint64 theirs = model->index(1, 0, image).data(HeldActionsModel::IdRole).toLongLong();
    const QString mineRow = model->heldAction(mine)->action.rowId;
    const QString theirRow = model->heldAction(theirs)->action.rowId;

    held->view()->setCurrentIndex(model->index(0, 0, image));
    held->view()->selectionModel()->select(
        model->index(0, 0, image), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QVERIFY2(held->approveAction()->isEnabled(), qPrintable(held->approvalBlocker()));
    QTest::keyClick(held->view(), Qt::Key_A); // one action: no confirmation
    QVERIFY(!held->pendingConfirmation());
    const HeldDecision console = waitForDecision(mine);
    QCOMPARE(heldOutcomeName(console.outcome), QStringLiteral("executed"));

    const Ran cli = reclaimRun({QStringLiteral("--approve"), QString::number(theirs)});
    QVERIFY2(cli.exitCode == 0, cli.both().constData());
    QVERIFY2(cli.out.contains("executed"), cli.both().constData());

    // The command line approves the console's: already executed, by the console's operator.
    const Ran again = reclaimRun({QStringLiteral("--approve"), QString::number(mine)});
    QCOMPARE(again.exitCode, 11);
    QVERIFY2(again.both().contains("already executed by"), again.both().constData());

    // The console approves the command line's (its listing is from before): told, not run.
    m_decisions.clear();
    QVERIFY(model->isDecidable(theirs));
    held->approve({theirs});
    const HeldDecision late = waitForDecision(theirs);
    QCOMPARE(heldOutcomeName(late.outcome), QStringLiteral("already-taken"));
    QVERIFY2(model->decisionText(theirs).startsWith(QStringLiteral("already executed by")),
             qPrintable(model->decisionText(theirs)));
    // The listing that follows the decisions no longer has either: both outcomes stay, and
    // neither can be decided again from here.
    QSignalSpy listed(held, &HeldPanel::listed);
    held->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1, 30000);
    QCOMPARE(model->decisionText(mine), QStringLiteral("executed"));
    QVERIFY2(model->decisionText(theirs).startsWith(QStringLiteral("already executed by")),
             qPrintable(model->decisionText(theirs)));
    QVERIFY(!model->isDecidable(mine) && !model->isDecidable(theirs));
    QCOMPARE(model->decidedCount(), 2);
    held->view()->setCurrentIndex(model->indexOf(theirs));
    screenshot(m_window.get(), QStringLiteral("held-decided"));

    for (const QString &row : {mineRow, theirRow}) {
        QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.audit WHERE domain = 'image' "
                                      "AND row_id = ? AND result = 'applied'"),
                       {row}),
                 1);
        QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"ImageJob\" WHERE id = ? AND "
                                      "status = 'FAILED'"),
                       {row}),
                 1);
    }
}

// In the candidates' tab, the console's own run planned the same action and kept it under the
// same held id: approving it there claims the held entry (the tab and the command line see who
// decided it), and its row in both tables says what came of it.
void TestUiHeld::aHeldActionApprovedFromTheCandidatesIsClaimedAsHeld()
{
    m_window->showHeldActions(false);
    HeldActionsModel *model = m_window->heldPanel()->model();
    const QModelIndex image = model->index(1, 0);
    const qint64 id = model->index(2, 0, image).data(HeldActionsModel::IdRole).toLongLong();
    const QString key = model->heldAction(id)->action.id;
    QVERIFY(m_window->selectCandidate(key));
    const Action *planned = m_window->actionsModel()->actionFor(key);
    QVERIFY(planned);
    QCOMPARE(planned->heldId, id);
    QVERIFY2(actionDetailText(*planned).startsWith(QStringLiteral("held: ")),
             qPrintable(actionDetailText(*planned)));
    QVERIFY2(m_window->approveAction()->isEnabled(), qPrintable(m_window->approvalBlocker()));
    m_decisions.clear();
    QSignalSpy shown(m_window.get(), &MainWindow::actionResultShown);
    m_window->approveAction()->trigger();
    QCOMPARE(heldOutcomeName(waitForDecision(id).outcome), QStringLiteral("executed"));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 30000);
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Applied);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE id = ? AND "
                                  "state = 'executed' AND state_by <> ''"),
                   {id}),
             1);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.audit WHERE domain = 'image' AND "
                                  "result = 'applied'")),
             3);
    m_window->showHeldActions(true);
}

// The image group selected: A asks first, stating the count, the kinds and the reason; Cancel
// writes nothing; confirming runs each once.
void TestUiHeld::aGroupIsApprovedBehindAConfirmation()
{
    HeldPanel *held = m_window->heldPanel();
    HeldActionsModel *model = held->model();
    QSignalSpy listed(held, &HeldPanel::listed);
    held->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1, 30000);
    QCOMPARE(model->waitingCount(), kImages - 3 + kDocuments);
    QModelIndex image;
    for (int g = 0; g < model->rowCount(); ++g)
        if (model->summary(model->index(g, 0)).domain == QLatin1String("image"))
            image = model->index(g, 0);
    QVERIFY(image.isValid());
    held->view()->setCurrentIndex(image);
    held->view()->selectionModel()->select(image, QItemSelectionModel::ClearAndSelect |
                                                      QItemSelectionModel::Rows);
    QCOMPARE(held->selectedIds().size(), kImages - 3);

    QTest::keyClick(held->view(), Qt::Key_A);
    HeldConfirmDialog *ask = held->pendingConfirmation();
    QVERIFY(ask);
    QVERIFY2(
        ask->text().contains(QStringLiteral("Approve %1 held actions of image").arg(kImages - 3)) &&
            ask->text().contains(QStringLiteral("%1 fail").arg(kImages - 3)) &&
            ask->text().contains(QStringLiteral("policy fail: approve")),
        qPrintable(ask->text()));
    screenshot(m_window.get(), QStringLiteral("held-for-approval"), ask);
    ask->reject();
    QTRY_VERIFY(!held->pendingConfirmation());
    m_window->activateWindow(); // the window manager's part, once the dialog is gone
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTest::qWait(300);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"ImageJob\" WHERE status = 'QUEUED'")),
             kImages - 3);

    m_decisions.clear();
    QTest::keyClick(held->view(), Qt::Key_A);
    ask = held->pendingConfirmation();
    QVERIFY(ask);
    const QList<qint64> ids = ask->ids();
    ask->confirmButton()->click();
    for (qint64 id : ids)
        QCOMPARE(heldOutcomeName(waitForDecision(id).outcome), QStringLiteral("executed"));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"ImageJob\" WHERE status = 'QUEUED'")), 0);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.audit WHERE domain = 'image' AND "
                                  "result = 'applied'")),
             kImages);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE domain = "
                                  "'image' AND state = 'executed'")),
             kImages);
}

// The misspelt domain: the operator rejects it whole, with a reason; no row of it changes, the
// rejection is recorded with the reason, and the next run holds nothing of it again.
void TestUiHeld::aMisspeltDomainIsRejectedAndNothingOfItIsWritten()
{
    HeldPanel *held = m_window->heldPanel();
    HeldActionsModel *model = held->model();
    QSignalSpy listed(held, &HeldPanel::listed);
    held->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1, 30000);
    // The image group is all decided here: it stays, saying so, until the operator clears it.
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->decidedCount(), kImages);
    QVERIFY(held->clearDecidedAction()->isEnabled());
    held->clearDecidedAction()->trigger();
    QCOMPARE(model->decidedCount(), 0);
    QCOMPARE(model->rowCount(), 1); // only what waits is left
    const QModelIndex document = model->index(0, 0);
    held->view()->setCurrentIndex(document);
    held->view()->selectionModel()->select(document, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_window->activateWindow(); // the window manager's part, once the last dialog is gone
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTest::keyClick(held->view(), Qt::Key_R);
    HeldConfirmDialog *ask = held->pendingConfirmation();
    QVERIFY(ask);
    QVERIFY2(ask->text().contains(QStringLiteral("has no trace in Redis")),
             qPrintable(ask->text()));
    ask->findChild<QLineEdit *>()->setText(QStringLiteral("queue name misspelt, fixing config"));
    m_decisions.clear();
    ask->confirmButton()->click();
    for (qint64 id : ask->ids())
        QCOMPARE(heldOutcomeName(waitForDecision(id).outcome), QStringLiteral("rejected"));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"DocumentJob\" WHERE status = 'QUEUED'")),
             kDocuments);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE domain = "
                                  "'document' AND state = 'rejected' AND state_detail LIKE "
                                  "'%misspelt%'")),
             kDocuments);

    const Ran next = reclaimRun({QStringLiteral("--once"), QStringLiteral("--json")});
    QVERIFY2(next.exitCode == 0 || next.exitCode == 10, next.both().constData());
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE domain = "
                                  "'document' AND state = 'held'")),
             0);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM \"DocumentJob\" WHERE status = 'QUEUED'")),
             kDocuments);
}

void TestUiHeld::cleanupTestCase()
{
    m_window.reset();
}

QTEST_MAIN(TestUiHeld)
#include "test_ui_held.moc"
