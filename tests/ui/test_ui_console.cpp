// The console against real servers: the sandbox with the seeded reference incident. A run fills
// the domains, candidates and lock panel; the operator approves a requeue that a real bullmq
// worker then completes, approves a write whose row moved on (stale, parent untouched), cannot
// approve an UNKNOWN job, and keeps the selection across a refresh. When Redis goes away the
// rows of the last completed run stay, marked stale, and approving during the outage writes
// nothing, through the window or past it.
#include "actionsmodel.h"
#include "auditmodel.h"
#include "auditview.h"
#include "candidatetablemodel.h"
#include "config/reclaimconfig.h"
#include "consoleincident.h"
#include "consolesession.h"
#include "detailspanel.h"
#include "domainlistmodel.h"
#include "lockpanel.h"
#include "mainwindow.h"
#include "runchart.h"
#include "settings.h"

#include <QAction>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::ui;
using namespace reclaim::test;

class TestUiConsole : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void runFillsDomainsCandidatesAndLock();
    void unknownJobCannotBeApproved();
    void approvedRequeueIsCompletedByARealWorker();
    void approvalOfARowThatMovedOnIsStale();
    void refreshKeepsTheSelection();
    void approvingDuringAnOutageWritesNothing();
    void rejectionIsRecordedNotOfferedAgainAndUndone();
    void auditHistoryPagesFiltersFindsAndExports();
    void cleanupTestCase();

private:
    Action approveAndWait(const QString &key);

    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleIncident> m_incident;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestUiConsole::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QDir().mkpath(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots"));
    m_incident = std::make_unique<ConsoleIncident>(11);
    if (!m_incident->sandboxAvailable())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    QVERIFY(m_incident->ready());
    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("console.ini")));
    MainWindow::Options options;
    options.rememberProfile = false;
    m_window = std::make_unique<MainWindow>(*m_settings, m_incident->profile(), options);
    m_window->resize(1400, 860);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QSignalSpy reports(m_window.get(), &MainWindow::reportShown);
    m_window->start();
    QVERIFY(m_window->session()->hasConfig());
    m_window->session()->setAutoRefreshSeconds(0); // only the runs this test asks for
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 120000);
}

void TestUiConsole::runFillsDomainsCandidatesAndLock()
{
    // Every candidate of the manifest is in the table with the verdict the incident implies.
    int candidates = 0;
    for (const QJsonValue &v : m_incident->incident().rows()) {
        const QJsonObject row = v.toObject();
        if (!row.value(QStringLiteral("candidate")).toBool())
            continue;
        ++candidates;
        const QString key = ConsoleIncident::keyOf(row);
        const CandidateTableModel::Row *shown = m_window->candidateModel()->rowForKey(key);
        QVERIFY2(shown, qPrintable(key));
        const QString expected = key == m_incident->unknownKey()
                                     ? QStringLiteral("UNKNOWN")
                                     : row.value(QStringLiteral("expectedVerdict")).toString();
        QCOMPARE(verdictName(shown->verdict->verdict), expected);
    }
    QCOMPARE(m_window->candidateModel()->rowCount(), candidates);
    // The worst is first: the UNKNOWN job, selected, with its evidence in the details panel.
    QCOMPARE(m_window->currentKey(), m_incident->unknownKey());
    QVERIFY(m_window->detailsPanel()->html().contains(QStringLiteral("WRONGTYPE")));
    // And its database row: the console's runs read each row's JSON (a headless run does not).
    const CandidateTableModel::Row *unknown =
        m_window->candidateModel()->rowForKey(m_incident->unknownKey());
    QVERIFY(unknown && !unknown->verdict->candidate.rowJson.isEmpty());
    QVERIFY(!m_window->detailsPanel()->html().contains(QStringLiteral("(not available)")));

    // Five domains plus "All domains", counts adding up.
    QCOMPARE(m_window->domainModel()->rowCount(), 6);
    int total = 0;
    for (int c = DomainListModel::UnknownColumn; c <= DomainListModel::ScheduledColumn; ++c)
        total += m_window->domainModel()->index(0, c).data().toInt();
    QCOMPARE(total, candidates);
    // The domain holding the UNKNOWN job is listed first (after "All domains").
    QCOMPARE(
        m_window->domainView()->model()->index(1, 0).data(DomainListModel::DomainRole).toString(),
        QStringLiteral("image"));

    // The lock panel: reachable, free again after the run, the generation the run took.
    QTRY_VERIFY_WITH_TIMEOUT(m_window->lockShown(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->lockPanel()->status().generation >= 1, 30000);
    QVERIFY(m_window->lockPanel()->status().reachable);
    QVERIFY2(m_window->lockPanel()->stateText().contains(QStringLiteral("Free")),
             qPrintable(m_window->lockPanel()->stateText()));
}

void TestUiConsole::unknownJobCannotBeApproved()
{
    const QString key = m_incident->unknownKey();
    QVERIFY(m_window->selectCandidate(key));
    QVERIFY(!m_window->approveAction()->isEnabled());
    QVERIFY(m_window->approvalBlocker().startsWith(QStringLiteral("UNKNOWN")));
    QVERIFY(!m_window->actionsModel()->actionFor(key));
    QTest::keyClick(m_window->candidateView(), Qt::Key_A);
    QCOMPARE(m_window->session()->approvalsInFlight(), 0);
}

Action TestUiConsole::approveAndWait(const QString &key)
{
    QSignalSpy results(m_window.get(), &MainWindow::actionResultShown);
    if (!m_window->selectCandidate(key))
        return {};
    if (!m_window->approveAction()->isEnabled()) {
        qWarning("approve is disabled: %s", qPrintable(m_window->approvalBlocker()));
        return {};
    }
    QTest::keyClick(m_window->candidateView(), Qt::Key_A); // the operator's shortcut
    if (!m_window->actionsModel()->isApproving(key))
        return {};
    if (!results.wait(60000) && results.isEmpty())
        return {};
    return results.first().first().value<Action>();
}

void TestUiConsole::approvedRequeueIsCompletedByARealWorker()
{
    const QJsonObject row = m_incident->row(QStringLiteral("restorable-compose-no-queue-entry"));
    QVERIFY(!row.isEmpty());
    const QString key = ConsoleIncident::keyOf(row);
    const QString jobId = row.value(QStringLiteral("requeueTo"))
                              .toObject()
                              .value(QStringLiteral("bullJobId"))
                              .toString();
    QVERIFY(m_window->selectCandidate(key));
    QCOMPARE(m_window->approveAction()->text(), QStringLiteral("Approve REQUEUE"));
    // The payload that would be enqueued is in view before approving.
    const QString html = m_window->detailsPanel()->html();
    QVERIFY(html.contains(QStringLiteral("Would enqueue job")));
    QVERIFY(html.contains(jobId));

    const Action done = approveAndWait(key);
    QCOMPARE(actionResultName(done.result), QStringLiteral("applied"));
    QCOMPARE(done.jobId, jobId);
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Applied);
    QVERIFY(
        m_window->candidateModel()
            ->index(m_window->candidateModel()->indexOfKey(key), CandidateTableModel::ActionColumn)
            .data()
            .toString()
            .endsWith(QStringLiteral("applied")));
    QVERIFY(!m_window->approveAction()->isEnabled()); // done once, not twice
    const auto status =
        sql(m_incident->env(), QStringLiteral("SELECT status FROM \"VideoJob\" WHERE id = ?"),
            {row.value(QStringLiteral("id")).toString()});
    QCOMPARE(status.value(0).value(0).toString(), QStringLiteral("QUEUED"));

    // An unmodified bullmq worker picks the requeued job up and completes it.
    const QByteArray out = runNode(m_incident->env(), QStringLiteral("worker.js"),
                                   {QStringLiteral("--queue"), QStringLiteral("video-generation"),
                                    QStringLiteral("--until-id"), jobId,
                                    QStringLiteral("--timeout-ms"), QStringLiteral("60000")},
                                   90000);
    bool completed = false;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject e = QJsonDocument::fromJson(line).object();
        if (e.value(QStringLiteral("event")).toString() == QLatin1String("completed") &&
            e.value(QStringLiteral("id")).toString() == jobId) {
            completed = true;
            QCOMPARE(e.value(QStringLiteral("data"))
                         .toObject()
                         .value(QStringLiteral("jobId"))
                         .toString(),
                     row.value(QStringLiteral("id")).toString());
        }
    }
    QVERIFY2(completed, out.constData());
}

void TestUiConsole::approvalOfARowThatMovedOnIsStale()
{
    const QJsonObject row = m_incident->row(QStringLiteral("orphan-generate-parent-processing"),
                                            QStringLiteral("slide"));
    QVERIFY(!row.isEmpty());
    const QString key = ConsoleIncident::keyOf(row);
    const QString id = row.value(QStringLiteral("id")).toString();
    const QJsonObject parent = row.value(QStringLiteral("parent")).toObject();
    QCOMPARE(parent.value(QStringLiteral("before")).toString(), QStringLiteral("PROCESSING"));
    QCOMPARE(m_window->actionsModel()->actionFor(key)->kind, ActionKind::Fail);

    // A worker saved progress after the run planned this action.
    sql(m_incident->env(),
        QStringLiteral("UPDATE \"SlideJob\" SET \"updatedAt\" = \"updatedAt\" + interval '1 "
                       "second' WHERE id = ?"),
        {id});

    const Action done = approveAndWait(key);
    QCOMPARE(actionResultName(done.result), QStringLiteral("stale"));
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Stale);
    const QString parentSql = QStringLiteral("SELECT \"%1\" FROM \"%2\" WHERE id = ?")
                                  .arg(parent.value(QStringLiteral("column")).toString(),
                                       parent.value(QStringLiteral("table")).toString());
    QCOMPARE(sql(m_incident->env(), parentSql, {parent.value(QStringLiteral("id")).toString()})
                 .value(0)
                 .value(0)
                 .toString(),
             QStringLiteral("PROCESSING"));
    QCOMPARE(
        sql(m_incident->env(), QStringLiteral("SELECT status FROM \"SlideJob\" WHERE id = ?"), {id})
            .value(0)
            .value(0)
            .toString(),
        QStringLiteral("PROCESSING"));
}

void TestUiConsole::refreshKeepsTheSelection()
{
    const QString requeued = ConsoleIncident::keyOf(
        m_incident->row(QStringLiteral("restorable-compose-no-queue-entry")));
    const QString key = ConsoleIncident::keyOf(
        m_incident->row(QStringLiteral("active-held-by-live-worker"), QStringLiteral("video")));
    QVERIFY(m_window->selectCandidate(key));
    QSignalSpy reports(m_window.get(), &MainWindow::reportShown);
    QSignalSpy progress(m_window->session(), &ConsoleSession::progress);
    m_window->runNowAction()->trigger();
    QVERIFY(!m_window->runNowAction()->isEnabled()); // one run at a time
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 120000);
    QVERIFY(progress.count() >= 5); // lock, candidates, lookup, scan, plan ... reached the window
    QVERIFY(m_window->runNowAction()->isEnabled());
    QCOMPARE(m_window->runChart()->runCount(), 2);

    QCOMPARE(m_window->currentKey(), key);
    const QModelIndexList selected = m_window->candidateView()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.first().data(CandidateTableModel::KeyRole).toString(), key);
    QVERIFY(!m_window->candidateModel()->lastMerge().reset);
    // The requeued row is QUEUED and fresh now: no longer a candidate, but its result stays.
    QVERIFY(!m_window->candidateModel()->rowForKey(requeued));
    QCOMPARE(m_window->actionsModel()->actionFor(requeued)->result, ActionResult::Applied);
    QVERIFY(m_window->candidateModel()->lastMerge().removed >= 1);

    // For people: the window after two runs and two approvals (history, chart lines).
    QVERIFY(m_window->selectCandidate(ConsoleIncident::keyOf(m_incident->row(
        QStringLiteral("orphan-generate-parent-processing"), QStringLiteral("slide")))));
    QCoreApplication::sendPostedEvents();
    QVERIFY(m_window->grab().save(
        QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/console-after-approvals.png"), "PNG"));
}

void TestUiConsole::approvingDuringAnOutageWritesNothing()
{
    // An ABSENT job whose action awaits approval, with what its row and the audit hold now.
    QString key;
    for (int r = 0; r < m_window->actionsModel()->rowCount() && key.isEmpty(); ++r) {
        const QString k =
            m_window->actionsModel()->index(r, 0).data(ActionsModel::KeyRole).toString();
        const Action *a = m_window->actionsModel()->actionFor(k);
        const CandidateTableModel::Row *row = m_window->candidateModel()->rowForKey(k);
        if (a && a->result == ActionResult::Pending && row &&
            row->verdict->verdict == Verdict::Absent)
            key = k;
    }
    QVERIFY2(!key.isEmpty(), "no pending action left to approve");
    const Action planned = *m_window->actionsModel()->actionFor(key);
    const Candidate candidate = m_window->candidateModel()->rowForKey(key)->verdict->candidate;
    const ReclaimConfig config = m_window->session()->config();
    QString table;
    for (const DomainConfig &d : config.domains)
        if (d.name == candidate.domain)
            table = d.table;
    QVERIFY(!table.isEmpty());
    const QString rowSql =
        QStringLiteral("SELECT status, \"updatedAt\"::text FROM \"%1\" WHERE id = ?").arg(table);
    const QString auditSql = QStringLiteral("SELECT count(*) FROM reclaim.audit");
    const auto rowBefore = sql(m_incident->env(), rowSql, {candidate.id});
    const auto auditBefore = sql(m_incident->env(), auditSql);
    QCOMPARE(rowBefore.size(), 1);

    // Redis goes away (nothing listens where the console now looks for it; PostgreSQL stays
    // up and writable). The next run cannot start.
    ReclaimConfig down = config;
    down.redis.host = QStringLiteral("127.0.0.1");
    down.redis.port = 1;
    m_window->session()->setConfig(down);
    QSignalSpy reports(m_window.get(), &MainWindow::reportShown);
    m_window->runNowAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 60000);
    QVERIFY(m_window->freshness().stale());
    QVERIFY(m_window->freshness().why.contains(QStringLiteral("Redis")));

    // The rows stay, marked stale with their age; approving is held, by button and shortcut.
    QVERIFY(m_window->selectCandidate(key));
    const QModelIndex verdict = m_window->candidateModel()->index(
        m_window->candidateModel()->indexOfKey(key), CandidateTableModel::VerdictColumn);
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT \u00b7 stale"));
    QVERIFY(!m_window->approveAction()->isEnabled());
    QVERIFY2(m_window->approvalBlocker().startsWith(QStringLiteral("On hold")),
             qPrintable(m_window->approvalBlocker()));
    QTest::keyClick(m_window->candidateView(), Qt::Key_A);
    m_window->approveAction()->trigger();
    QCOMPARE(m_window->session()->approvalsInFlight(), 0);
    QVERIFY(!m_window->actionsModel()->isApproving(key));

    // Even an approval that reaches the worker during the outage is refused: the lock cannot be
    // taken, so nothing is written.
    QSignalSpy finished(m_window->session(), &ConsoleSession::actionFinished);
    QVERIFY(m_window->session()->approve(planned, candidate));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const Action refused = finished.first().first().value<Action>();
    QCOMPARE(refused.result, ActionResult::Dropped);
    QVERIFY2(refused.resultDetail.contains(QStringLiteral("could not take the lock")),
             qPrintable(refused.resultDetail));
    QCOMPARE(sql(m_incident->env(), rowSql, {candidate.id}), rowBefore);
    QCOMPARE(sql(m_incident->env(), auditSql), auditBefore);

    // Redis is back: a run completes, the marking goes, the job is offered again.
    m_window->session()->setConfig(config);
    reports.clear();
    QTRY_VERIFY_WITH_TIMEOUT(m_window->runNowAction()->isEnabled(), 30000);
    m_window->runNowAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 120000);
    QVERIFY(!m_window->freshness().stale());
    QCOMPARE(
        m_window->candidateModel()
            ->index(m_window->candidateModel()->indexOfKey(key), CandidateTableModel::VerdictColumn)
            .data()
            .toString(),
        QStringLiteral("ABSENT"));
    QVERIFY(m_window->selectCandidate(key));
    QVERIFY2(m_window->approveAction()->isEnabled(), qPrintable(m_window->approvalBlocker()));
}

// Reject (R) is recorded before it is shown; the next run does not offer the job again (its row
// is unchanged) and lists it once, as rejected by the operator; Ctrl+Z undoes it and the job is
// offered again, by this run's entry and by the next run.
void TestUiConsole::rejectionIsRecordedNotOfferedAgainAndUndone()
{
    QString key;
    for (int r = 0; r < m_window->actionsModel()->rowCount() && key.isEmpty(); ++r) {
        const QString k =
            m_window->actionsModel()->index(r, 0).data(ActionsModel::KeyRole).toString();
        const Action *a = m_window->actionsModel()->actionFor(k);
        const CandidateTableModel::Row *row = m_window->candidateModel()->rowForKey(k);
        if (a && a->result == ActionResult::Pending && row &&
            row->verdict->verdict == Verdict::Absent)
            key = k;
    }
    QVERIFY2(!key.isEmpty(), "no pending action left to reject");
    const Action planned = *m_window->actionsModel()->actionFor(key);
    const QString rowId = planned.rowId;
    QVERIFY(m_window->selectCandidate(key));
    QVERIFY(m_window->rejectAction()->isEnabled());

    QSignalSpy shown(m_window.get(), &MainWindow::rejectionShown);
    QTest::keyClick(m_window->candidateView(), Qt::Key_R);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
    QCOMPARE(shown.first().at(1).toString(), QString());
    const Action *rejected = m_window->actionsModel()->actionFor(key);
    QCOMPARE(rejected->result, ActionResult::Rejected);
    QVERIFY(m_window->actionsModel()
                ->index(m_window->actionsModel()->rowOf(key), ActionsModel::ResultColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("rejected by")));
    QVERIFY(!m_window->approveAction()->isEnabled());
    QVERIFY(m_window->undoRejectionAction()->isEnabled());

    // In the database: the rejection and its audit row, with the precondition seen.
    const auto audit =
        sql(m_incident->env(),
            QStringLiteral("SELECT observed_status, observed_updated_at, actor_kind FROM "
                           "reclaim.audit WHERE row_id = ? AND result = 'rejected'"),
            {rowId});
    QCOMPARE(audit.size(), 1);
    QCOMPARE(audit.first().at(0).toString(), planned.precondition.status);
    QCOMPARE(audit.first().at(1).toString(), planned.precondition.updatedAtText);
    QCOMPARE(audit.first().at(2).toString(), QStringLiteral("operator"));

    // The next run: not offered again, one entry, still rejected.
    const int entries = m_window->actionsModel()->rowCount();
    QSignalSpy reports(m_window.get(), &MainWindow::reportShown);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->runNowAction()->isEnabled(), 30000);
    m_window->runNowAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 120000);
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Rejected);
    QCOMPARE(m_window->actionsModel()->rowCount(), entries);
    QVERIFY(m_window->selectCandidate(key));
    QVERIFY(!m_window->approveAction()->isEnabled());
    QVERIFY2(m_window->approvalBlocker().startsWith(QStringLiteral("Rejected by")),
             qPrintable(m_window->approvalBlocker()));

    // Undo (Ctrl+Z): recorded, approvable again, and the next run offers it.
    shown.clear();
    QTest::keyClick(m_window->candidateView(), Qt::Key_Z, Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
    QCOMPARE(shown.first().at(1).toString(), QString());
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Pending);
    QVERIFY2(m_window->approveAction()->isEnabled(), qPrintable(m_window->approvalBlocker()));
    QCOMPARE(sql(m_incident->env(),
                 QStringLiteral("SELECT count(*) FROM reclaim.rejection WHERE row_id = ? AND "
                                "undone_at IS NULL"),
                 {rowId})
                 .first()
                 .first()
                 .toInt(),
             0);
    reports.clear();
    m_window->runNowAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(reports.count(), 1, 120000);
    QCOMPARE(m_window->actionsModel()->actionFor(key)->result, ActionResult::Pending);
}

// The audit history: newest first, a page at a time as the view scrolls, filtered by job,
// a job looked up by id, and every matching row exported.
void TestUiConsole::auditHistoryPagesFiltersFindsAndExports()
{
    // 450 rows of one job's history, after everything the earlier tests wrote.
    sql(m_incident->env(),
        QStringLiteral("INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, "
                       "generation, domain, row_id, action, observed_status, "
                       "observed_updated_at, result, detail) SELECT 'hist', 'daemon', 'h', 'd', "
                       "g, 'video', 'hist-job', 'FAIL', 'PROCESSING', '2026-01-01 00:00:00', "
                       "'stale', 'history row ' || g FROM generate_series(1, 450) g"));
    const int total = sql(m_incident->env(), QStringLiteral("SELECT count(*) FROM reclaim.audit"))
                          .first()
                          .first()
                          .toInt();
    const qint64 newest =
        sql(m_incident->env(), QStringLiteral("SELECT max(id) FROM reclaim.audit"))
            .first()
            .first()
            .toLongLong();

    QTest::keyClick(m_window.get(), Qt::Key_H, Qt::ControlModifier);
    AuditView *audit = m_window->auditView();
    QVERIFY(audit);
    QTRY_VERIFY_WITH_TIMEOUT(audit->pagesShown() >= 1, 30000);
    QCOMPARE(audit->model()->rowCount(), 200);
    QCOMPARE(audit->model()->entry(0).id, newest);
    QVERIFY(audit->model()->more());
    for (int r = 1; r < audit->model()->rowCount(); ++r)
        QVERIFY(audit->model()->entry(r).id < audit->model()->entry(r - 1).id);
    // Scrolling to the end asks for the next page, off the UI thread.
    const int pages = audit->pagesShown();
    audit->view()->scrollToBottom();
    QTRY_VERIFY_WITH_TIMEOUT(audit->pagesShown() > pages, 30000);
    QCOMPARE(audit->model()->rowCount(), std::min(400, total));

    // Filtered by job: only that job's rows, all of them, page after page.
    AuditFilter job;
    job.rowId = QStringLiteral("hist-job");
    audit->setFilter(job);
    QTRY_VERIFY_WITH_TIMEOUT(audit->model()->rowCount() == 200, 30000);
    while (audit->model()->more()) {
        const int shown = audit->model()->rowCount();
        audit->model()->fetchMore({});
        QTRY_VERIFY_WITH_TIMEOUT(audit->model()->rowCount() > shown, 30000);
    }
    QCOMPARE(audit->model()->rowCount(), 450);
    for (const AuditEntry &e : audit->model()->entries())
        QCOMPARE(e.rowId, QStringLiteral("hist-job"));
    QVERIFY(audit->statusText().contains(QStringLiteral("All 450")));
    // No such row: the note says so (after looking at every table), the history is there.
    QSignalSpy explained(m_window.get(), &MainWindow::jobExplanationShown);
    m_window->findJob(QStringLiteral("hist-job"));
    QVERIFY2(audit->jobNote().contains(QStringLiteral("not a candidate")),
             qPrintable(audit->jobNote()));
    QTRY_COMPARE_WITH_TIMEOUT(explained.count(), 1, 60000);
    QVERIFY2(audit->jobNote().contains(QStringLiteral("no row hist-job")),
             qPrintable(audit->jobNote()));
    // A row that is no candidate (a job the app finished): its row and queue state, all the same.
    QJsonObject done;
    for (const QJsonValue &v : m_incident->incident().rows())
        if (!v.toObject().value(QStringLiteral("candidate")).toBool() &&
            !v.toObject().value(QStringLiteral("id")).toString().isEmpty() && done.isEmpty())
            done = v.toObject();
    QVERIFY(!done.isEmpty());
    const QString doneId = done.value(QStringLiteral("id")).toString();
    explained.clear();
    m_window->findJob(doneId);
    QTRY_COMPARE_WITH_TIMEOUT(explained.count(), 1, 60000);
    QVERIFY2(audit->jobNote().contains(QStringLiteral("not a candidate")) &&
                 audit->jobNote().contains(QStringLiteral("row status")),
             qPrintable(audit->jobNote()));
    // A candidate: the note has its verdict in the latest run.
    const QJsonObject unknown = m_incident->row(QStringLiteral("orphan-generate-parent-processing"),
                                                QStringLiteral("slide"));
    m_window->findJob(unknown.value(QStringLiteral("id")).toString());
    QVERIFY2(audit->jobNote().contains(QStringLiteral("ABSENT")), qPrintable(audit->jobNote()));

    // Export: every matching row, not just the ones shown.
    QTemporaryDir dir;
    QSignalSpy exported(audit, &AuditView::exportFinished);
    QVERIFY(audit->exportTo(dir.filePath(QStringLiteral("audit.csv"))));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 60000);
    QCOMPARE(exported.first().at(2).toString(), QString());
    QCOMPARE(exported.first().at(1).toLongLong(), 450);
    QFile csv(dir.filePath(QStringLiteral("audit.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 451);
    QVERIFY(lines.first().startsWith("id,at,domain,rowId"));
    audit->setFilter({});
    QTRY_VERIFY_WITH_TIMEOUT(audit->model()->rowCount() == 200, 30000);
    exported.clear();
    QVERIFY(audit->exportTo(dir.filePath(QStringLiteral("audit.json"))));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 60000);
    QFile json(dir.filePath(QStringLiteral("audit.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonArray all = QJsonDocument::fromJson(json.readAll()).array();
    QCOMPARE(all.size(), total);
    QCOMPARE(all.first().toObject().value(QStringLiteral("id")).toInteger(), newest);
    audit->close();
}

void TestUiConsole::cleanupTestCase()
{
    m_window.reset();
    m_incident.reset();
}

QTEST_MAIN(TestUiConsole)
#include "test_ui_console.moc"
