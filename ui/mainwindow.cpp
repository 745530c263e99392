#include "mainwindow.h"

#include "actionsmodel.h"
#include "actionspanel.h"
#include "auditview.h"
#include "banner.h"
#include "candidateexport.h"
#include "candidatefilterproxy.h"
#include "candidatespanel.h"
#include "candidatetablemodel.h"
#include "config/connectionurl.h"
#include "connectiondialog.h"
#include "connectionstatus.h"
#include "consolesession.h"
#include "detailspanel.h"
#include "domainlistmodel.h"
#include "jobexplanationhtml.h"
#include "lockpanel.h"
#include "runchart.h"
#include "runcontrols.h"
#include "runproblems.h"
#include "settings.h"
#include "tablestyle.h"
#include "verdictstyle.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

QWidget *titled(const QString &title, QWidget *content, QWidget *parent,
                QLabel **titleLabel = nullptr)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *label = new QLabel(title, box);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    if (titleLabel)
        *titleLabel = label;
    return box;
}

} // namespace

MainWindow::MainWindow(Settings &settings, ConnectionProfile profile, Options options,
                       QWidget *parent)
    : QMainWindow(parent), m_settings(settings), m_profile(std::move(profile)), m_options(options),
      m_session(new ConsoleSession({options.readOnly, options.lockPeekMs}, this)),
      m_domains(new DomainListModel(this)), m_domainProxy(new QSortFilterProxyModel(this)),
      m_candidates(new CandidateTableModel(this)), m_proxy(new CandidateFilterProxy(this)),
      m_actions(new ActionsModel(this))
{
    m_actions->setReadOnly(options.readOnly);
    m_proxy->setSourceModel(m_candidates);
    m_domainProxy->setSourceModel(m_domains);
    m_domainProxy->setSortRole(DomainListModel::SeverityRole);
    m_domainProxy->setDynamicSortFilter(true);
    m_domainProxy->sort(DomainListModel::NameColumn, Qt::DescendingOrder);

    buildActions();
    buildLayout();
    buildMenus();
    restoreLayout();

    connect(m_session, &ConsoleSession::runStarted, this, [this] {
        m_runControls->setRunning(true);
        m_lock->setRunInFlight(true);
        m_runNow->setEnabled(false);
    });
    connect(m_session, &ConsoleSession::progress, m_runControls, &RunControls::setProgress);
    connect(
        m_session, &ConsoleSession::runFinished, this,
        [this](const RunReport &report, const CandidateRows &rows) { showReport(report, rows); });
    connect(m_session, &ConsoleSession::lockStatus, this, &MainWindow::showLockStatus);
    connect(m_session, &ConsoleSession::actionFinished, this, &MainWindow::showActionResult);
    connect(m_session, &ConsoleSession::jobExplained, this,
            [this](const QString &rowId, const QList<JobExplanation> &found, const QString &error) {
                if (!m_audit || rowId != m_lookedUp)
                    return; // the operator has looked for another id since
                m_audit->setJobNote(jobNote(rowId) + QStringLiteral("<br>") +
                                    jobExplanationHtml(rowId, found, error));
                emit jobExplanationShown(rowId);
            });
    connect(m_session, &ConsoleSession::rejectionRecorded, this,
            [this](const Action &action, const QString &error) {
                showRejection(action, error, false);
            });
    connect(
        m_session, &ConsoleSession::rejectionUndone, this,
        [this](const Action &action, const QString &error) { showRejection(action, error, true); });
    connect(m_banner, &Banner::profileRequested, this, &MainWindow::openProfileDialog);
    connect(m_runControls, &RunControls::autoRefreshChanged, this, [this](int seconds) {
        m_session->setAutoRefreshSeconds(seconds);
        m_runControls->setNextRun(m_session->nextRunAt());
        if (m_options.rememberProfile)
            m_settings.setAutoRefreshSeconds(seconds);
    });

    // While the tables show an earlier run, their age in the stale marking keeps moving.
    m_staleTicker.setInterval(15000);
    connect(&m_staleTicker, &QTimer::timeout, this, &MainWindow::showFreshness);

    setWindowTitle(QStringLiteral("Reclaim console%1")
                       .arg(m_options.readOnly ? QStringLiteral(" (read-only)") : QString()));
    updateApproval();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions()
{
    m_runNow = new QAction(QStringLiteral("Run now"), this);
    m_runNow->setShortcut(QKeySequence(Qt::Key_F5));
    m_runNow->setToolTip(
        QStringLiteral("Look at every domain now and plan actions (F5). Nothing is executed "
                       "without your approval."));
    connect(m_runNow, &QAction::triggered, this, [this] {
        if (m_session->runNow())
            m_runNow->setEnabled(false);
    });

    m_approve = new QAction(QStringLiteral("Approve"), this);
    m_approve->setShortcuts({QKeySequence(Qt::Key_A)});
    connect(m_approve, &QAction::triggered, this, &MainWindow::approveCurrent);
    m_reject = new QAction(QStringLiteral("Reject"), this);
    m_reject->setShortcuts({QKeySequence(Qt::Key_R), QKeySequence(Qt::Key_Delete)});
    m_reject->setIconText(QStringLiteral("Reject (R)"));
    m_reject->setToolTip(QStringLiteral(
        "Do not run this action (R or Delete). The job row is not touched; the rejection is "
        "recorded in reclaim.audit and the action is not offered again while the row keeps this "
        "status and updatedAt."));
    connect(m_reject, &QAction::triggered, this, &MainWindow::rejectCurrent);
    m_undoReject = new QAction(QStringLiteral("Undo rejection"), this);
    m_undoReject->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    m_undoReject->setIconText(QStringLiteral("Undo rejection (Ctrl+Z)"));
    m_undoReject->setToolTip(QStringLiteral(
        "Withdraw the recorded rejection of this action (Ctrl+Z): it can be approved again now, "
        "and every run offers it again."));
    connect(m_undoReject, &QAction::triggered, this, &MainWindow::undoRejectionCurrent);

    m_profileAction = new QAction(QStringLiteral("Connection profile\u2026"), this);
    m_profileAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    connect(m_profileAction, &QAction::triggered, this, &MainWindow::openProfileDialog);
    m_export = new QAction(QStringLiteral("Export candidates\u2026"), this);
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_export->setToolTip(
        QStringLiteral("Write the candidates the table shows to a CSV or JSON file (Ctrl+E)."));
    connect(m_export, &QAction::triggered, this, &MainWindow::openExportDialog);
    m_auditHistory = new QAction(QStringLiteral("Audit history\u2026"), this);
    m_auditHistory->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    m_auditHistory->setToolTip(QStringLiteral(
        "Everything Reclaim did or was told not to do, newest first, filterable (Ctrl+H)."));
    connect(m_auditHistory, &QAction::triggered, this, [this] { openAuditHistory(); });
    m_findJob = new QAction(QStringLiteral("Find job by id\u2026"), this);
    m_findJob->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    m_findJob->setToolTip(QStringLiteral(
        "Look up any job row id: what the latest run saw of it and its audit history (Ctrl+G)."));
    connect(m_findJob, &QAction::triggered, this, [this] {
        AuditFilter f;
        f.rowId = m_currentKey.section(u'/', 1);
        openAuditHistory(f)->focusJobField();
        findJob(f.rowId);
    });
    m_exportAudit = new QAction(QStringLiteral("Export audit\u2026"), this);
    m_exportAudit->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_exportAudit->setToolTip(QStringLiteral(
        "Write the audit rows matching the history view's filter to CSV or JSON (Ctrl+Shift+E)."));
    connect(m_exportAudit, &QAction::triggered, this, [this] {
        openAuditHistory(m_audit ? m_audit->filter() : AuditFilter{})->openExportDialog();
    });
    m_quit = new QAction(QStringLiteral("Quit"), this);
    m_quit->setShortcut(
        QKeySequence(Qt::CTRL | Qt::Key_Q)); // QKeySequence::Quit is empty on some platforms
    connect(m_quit, &QAction::triggered, this, &QWidget::close);
}

// Every command is in a menu with its shortcut beside it, so the console can be driven from the
// keyboard alone: Alt opens the menus, and the shortcuts work from anywhere in the window.
void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    file->addAction(m_export);
    file->addAction(m_exportAudit);
    file->addSeparator();
    file->addAction(m_quit);
    QMenu *connection = menuBar()->addMenu(QStringLiteral("&Connection"));
    connection->addAction(m_profileAction);

    QMenu *runs = menuBar()->addMenu(QStringLiteral("&Run"));
    runs->addAction(m_runNow);
    runs->addSeparator();
    QMenu *interval = runs->addMenu(QStringLiteral("Auto-refresh &interval"));
    // Choices can be added later (an unusual configured interval): list them as they are now.
    connect(interval, &QMenu::aboutToShow, this, [this, interval] {
        interval->clear();
        interval->addActions(m_runControls->intervalActions()->actions());
    });
    interval->addActions(m_runControls->intervalActions()->actions());

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    auto *filter = view->addAction(QStringLiteral("Filter candidates\u2026"));
    filter->setShortcut(QKeySequence::Find);
    connect(filter, &QAction::triggered, m_candidatesPanel, &CandidatesPanel::focusFilter);
    const QList<QAction *> verdicts = m_candidatesPanel->verdictActions();
    const Qt::Key verdictKeys[] = {Qt::Key_U, Qt::Key_A, Qt::Key_S};
    for (qsizetype i = 0; i < verdicts.size(); ++i)
        verdicts.at(i)->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | verdictKeys[i]));
    view->addSeparator();
    view->addActions(verdicts);
    view->addSeparator();
    view->addAction(m_auditHistory);
    view->addAction(m_findJob);
    view->addSeparator();
    // Focus moves between the panels by number, left to right and top to bottom.
    const std::pair<QString, QWidget *> panels[] = {
        {QStringLiteral("Go to domains"), m_domainView},
        {QStringLiteral("Go to candidates"), m_candidatesPanel->view()},
        {QStringLiteral("Go to evidence"), m_details->findChild<QTextBrowser *>()},
        {QStringLiteral("Go to actions"), m_actionsPanel->view()}};
    int n = 0;
    for (const auto &[text, target] : panels) {
        auto *go = view->addAction(text);
        go->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + n++)));
        QWidget *widget = target;
        connect(go, &QAction::triggered, widget,
                [widget] { widget->setFocus(Qt::ShortcutFocusReason); });
        addAction(go);
    }

    QMenu *actions = menuBar()->addMenu(QStringLiteral("&Actions"));
    actions->addAction(m_approve);
    actions->addAction(m_reject);
    actions->addAction(m_undoReject);
    // Window-wide shortcuts (text fields still take their own letters first).
    addActions({m_runNow, m_approve, m_reject, m_undoReject, m_profileAction, m_export, filter,
                m_auditHistory, m_findJob, m_exportAudit});
    addActions(verdicts);
}

void MainWindow::buildLayout()
{
    auto *central = new QWidget(this);
    auto *outerLayout = new QVBoxLayout(central);
    outerLayout->setContentsMargins(6, 4, 6, 2);
    outerLayout->setSpacing(4);

    m_runControls = new RunControls(m_runNow, central);
    m_banner = new Banner(central);
    outerLayout->addWidget(m_runControls);
    outerLayout->addWidget(m_banner);

    // Left: domains worst first, the lock, recent runs.
    m_domainView = new QTableView(central);
    configureTable(m_domainView);
    m_domainView->setModel(m_domainProxy);
    m_domainView->horizontalHeader()->setSectionResizeMode(DomainListModel::NameColumn,
                                                           QHeaderView::Stretch);
    for (int c = DomainListModel::UnknownColumn; c < DomainListModel::ColumnCount; ++c)
        m_domainView->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_lock = new LockPanel(central);
    m_chart = new RunChart(central);
    m_chart->setMinimumHeight(110);
    m_domainView->setMinimumHeight(m_domainView->verticalHeader()->defaultSectionSize() * 4);
    m_left = new QSplitter(Qt::Vertical, central);
    m_left->addWidget(
        titled(QStringLiteral("Domains (worst first)"), m_domainView, m_left, &m_domainTitle));
    m_left->addWidget(m_lock);
    m_left->addWidget(titled(QStringLiteral("Recent runs"), m_chart, m_left));
    m_left->setStretchFactor(0, 3);
    m_left->setStretchFactor(1, 0);
    m_left->setStretchFactor(2, 2);
    m_left->setChildrenCollapsible(false);

    m_candidatesPanel = new CandidatesPanel(m_candidates, m_proxy, central);

    // Right: the candidates across the full width, and below them the selected job's evidence
    // next to the actions to approve, so the evidence is in view when approving.
    m_actionsPanel = new ActionsPanel(m_actions, m_approve, m_reject, central);
    m_actionsPanel->setUndoAction(m_undoReject);
    m_details = new DetailsPanel(central);
    m_bottom = new QSplitter(Qt::Horizontal, central);
    m_bottom->addWidget(
        titled(QStringLiteral("Selected job: evidence and plan"), m_details, m_bottom));
    m_bottom->addWidget(m_actionsPanel);
    m_bottom->setStretchFactor(0, 4);
    m_bottom->setStretchFactor(1, 5);
    m_bottom->setChildrenCollapsible(false);
    m_center = new QSplitter(Qt::Vertical, central);
    m_center->addWidget(m_candidatesPanel);
    m_center->addWidget(m_bottom);
    m_center->setStretchFactor(0, 1);
    m_center->setStretchFactor(1, 1);
    m_center->setChildrenCollapsible(false);

    m_outer = new QSplitter(Qt::Horizontal, central);
    m_outer->addWidget(m_left);
    m_outer->addWidget(m_center);
    m_outer->setStretchFactor(0, 0);
    m_outer->setStretchFactor(1, 1);
    m_outer->setChildrenCollapsible(false);
    outerLayout->addWidget(m_outer, 1);
    setCentralWidget(central);

    m_connection = new ConnectionStatus(m_options.readOnly, this);
    statusBar()->addPermanentWidget(m_connection); // action results show as messages on its left

    connect(m_candidatesPanel, &CandidatesPanel::currentKeyChanged, this,
            [this](const QString &key) {
                if (!m_syncingSelection)
                    setCurrentKey(key);
            });
    connect(m_actionsPanel, &ActionsPanel::actionSelected, this, [this](const QString &key) {
        if (!selectCandidate(key))
            setCurrentKey(key); // filtered out of the table: show it anyway
    });
    fitDomainColumn();
    connect(m_domainProxy, &QAbstractItemModel::modelReset, this, &MainWindow::fitDomainColumn);
    connect(m_domainProxy, &QAbstractItemModel::layoutChanged, this, &MainWindow::fitDomainColumn);
    connect(m_domainProxy, &QAbstractItemModel::dataChanged, this, &MainWindow::fitDomainColumn);
    connect(m_domainView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                m_proxy->setDomain(current.data(DomainListModel::DomainRole).toString());
            });
}

void MainWindow::restoreLayout()
{
    if (!m_options.rememberProfile)
        return;
    restoreGeometry(m_settings.windowGeometry());
    // Saved splitter states win over the defaults that fit the window (applyDefaultSizes).
    m_layoutRestored = m_left->restoreState(m_settings.splitterState(QStringLiteral("left"))) &&
                       m_center->restoreState(m_settings.splitterState(QStringLiteral("center"))) &&
                       m_bottom->restoreState(m_settings.splitterState(QStringLiteral("bottom"))) &&
                       m_outer->restoreState(m_settings.splitterState(QStringLiteral("outer")));
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_layoutRestored && !m_defaultSizesApplied)
        applyDefaultSizes();
}

// Proportions that suit the window as it is first shown, from a 1024x640 laptop to a large
// screen: the left column as narrow as its tables allow, the evidence and the actions sharing
// the bottom with the actions a little wider (their precondition and result must fit).
void MainWindow::applyDefaultSizes()
{
    m_defaultSizesApplied = true;
    const int width = std::max(centralWidget()->width(), 800);
    const int height = std::max(m_outer->height(), 400);
    const int left = std::clamp(width / 5, m_left->minimumSizeHint().width(), 300);
    m_outer->setSizes({left, width - left});
    const int center = width - left;
    m_bottom->setSizes({center * 9 / 20, center - center * 9 / 20});
    if (center < 900) // a laptop: the actions need their columns more than the evidence its width
        m_bottom->setSizes({center * 2 / 5, center - center * 2 / 5});
    m_center->setSizes({height * 9 / 20, height - height * 9 / 20});
    const int lock = m_lock->sizeHint().height();
    m_left->setSizes({(height - lock) * 11 / 20, lock, (height - lock) * 9 / 20});
}

// The domains table is never narrower than its names and counts: the splitter gives way
// elsewhere.
void MainWindow::fitDomainColumn()
{
    QHeaderView *header = m_domainView->horizontalHeader();
    int needed =
        2 * m_domainView->frameWidth() + m_domainView->verticalScrollBar()->sizeHint().width();
    // Before the first report too: the titles, "All domains" in bold and a few digits each, so
    // that the first layout already leaves the counts their room.
    QFont bold = m_domainView->font();
    bold.setBold(true);
    const int digits = m_domainView->fontMetrics().horizontalAdvance(QStringLiteral("0000")) + 12;
    const int name = QFontMetrics(bold).horizontalAdvance(QStringLiteral("All domains")) + 28;
    for (int c = 0; c < DomainListModel::ColumnCount; ++c)
        needed += std::max({static_cast<QAbstractItemView *>(m_domainView)->sizeHintForColumn(c),
                            header->sectionSizeHint(c),
                            c == DomainListModel::NameColumn ? name : digits});
    m_domainView->setMinimumWidth(std::min(needed, 420));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_options.rememberProfile) {
        m_settings.setWindowGeometry(saveGeometry());
        m_settings.setSplitterState(QStringLiteral("left"), m_left->saveState());
        m_settings.setSplitterState(QStringLiteral("center"), m_center->saveState());
        m_settings.setSplitterState(QStringLiteral("bottom"), m_bottom->saveState());
        m_settings.setSplitterState(QStringLiteral("outer"), m_outer->saveState());
        m_settings.sync();
    }
    event->accept();
}

void MainWindow::start()
{
    const auto config = loadProfile(m_profile);
    if (!config) {
        showConfigProblem(config.error());
        return;
    }
    applyConfig(*config);
}

void MainWindow::applyConfig(const ReclaimConfig &config)
{
    m_banner->clearMessage(QStringLiteral("config"));
    m_session->setConfig(config);
    m_config = config;
    if (m_audit)
        m_audit->setConfig(config);
    m_banner->setMessage(
        QStringLiteral("mode"), Banner::Severity::Info,
        m_options.readOnly
            ? QStringLiteral("Read-only console: runs are dry runs and actions are only "
                             "planned; nothing is written to Redis or PostgreSQL.")
            : QString());
    m_connection->setConfig(config);
    const std::optional<int> chosen =
        m_options.rememberProfile ? m_settings.autoRefreshSeconds() : std::nullopt;
    const int seconds = chosen.value_or(static_cast<int>(config.run.interval.count()));
    m_runControls->setAutoRefreshSeconds(seconds);
    m_session->setAutoRefreshSeconds(seconds);
    m_session->runNow();
    m_runControls->setNextRun(m_session->nextRunAt());
    updateApproval();
}

void MainWindow::showConfigProblem(const QString &problem)
{
    m_banner->setMessage(QStringLiteral("config"), Banner::Severity::Error,
                         problem + QStringLiteral(" Nothing can run until it is fixed."), true);
    m_lock->setUnavailable(QStringLiteral("no configuration loaded"));
    m_connection->setConfigMissing(m_profile.configPath);
    m_runNow->setEnabled(false);
    updateApproval();
}

void MainWindow::openProfileDialog()
{
    auto *dialog = new ConnectionDialog(m_profile, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (m_banner->hasMessage(QStringLiteral("config")))
        dialog->setProblem(m_banner->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_profile = dialog->profile();
        if (m_options.rememberProfile)
            m_profile.save(m_settings);
        start();
    });
    dialog->open();
}

void MainWindow::showReport(const RunReport &report)
{
    showReport(report, buildCandidateRows(report));
}

void MainWindow::showReport(const RunReport &report, CandidateRows rows)
{
    ++m_reportsShown;
    m_runControls->setRunning(false);
    m_runControls->setLastRun(report);
    m_runControls->setNextRun(m_session->nextRunAt());
    m_runNow->setEnabled(m_session->hasConfig() && !m_session->runInFlight());
    m_lock->setRunInFlight(false);
    m_chart->addRun(report);

    std::optional<QDateTime> shownRun;
    if (m_lastCompleted)
        shownRun = m_lastCompleted->startedAt;
    showRunProblems(*m_banner, report, shownRun);
    if (report.outcome == RunReport::Outcome::Completed) {
        m_domains->setReport(report);
        m_candidates->setRows(std::move(rows));
        m_actions->setReport(report);
        m_lastCompleted = report;
        m_candidatesPanel->setCounts(&*m_lastCompleted);
        m_connection->setDatabaseRead(report.startedAt);
    } else if (report.outcome == RunReport::Outcome::Failed) {
        m_connection->setDatabaseFailed(report.startedAt, report.outcomeDetail);
    }
    m_freshness = Freshness::after(m_freshness, report);
    showFreshness();

    // At 3 a.m. the first thing on screen should be the worst job, with its evidence.
    if (!m_domainView->selectionModel()->currentIndex().isValid() && m_domainProxy->rowCount() > 0)
        m_domainView->selectionModel()->setCurrentIndex(m_domainProxy->index(0, 0),
                                                        QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
    if (m_currentKey.isEmpty() && m_proxy->rowCount() > 0)
        m_candidatesPanel->select(
            m_proxy->index(0, 0).data(CandidateTableModel::KeyRole).toString());
    refreshDetails();
    updateApproval();
    emit reportShown();
}

void MainWindow::showLockStatus(const LockStatus &status)
{
    m_lock->setStatus(status);
    m_lockShown = true;
    m_connection->setRedis(status);
    emit lockStatusShown();
}

void MainWindow::showActionResult(const Action &action)
{
    m_actions->updateAction(action);
    m_candidates->updateAction(action);
    m_chart->recordAction(action);
    statusBar()->showMessage(
        QStringLiteral("%1 %2: %3")
            .arg(actionKindName(action.kind), action.id, actionResultText(action.result)),
        15000);
    if (action.id == m_currentKey)
        refreshDetails();
    updateApproval();
    emit actionResultShown(action);
}

// The stale marking: rows greyed with "stale" by their verdict, a note over the table with their
// age, the domains' title, and pending actions held. Cleared by the next completed run.
void MainWindow::showFreshness()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool stale = m_freshness.stale();
    const QString why = m_freshness.explanation(now);
    m_candidates->setStale(stale, why);
    m_candidatesPanel->setStaleNote(
        stale ? why + QStringLiteral(" The counts are that run's too; approving is off until a "
                                     "run completes.")
              : QString());
    m_actions->setHold(m_freshness.approvalHold(now));
    m_domainTitle->setText(
        stale ? QStringLiteral("Domains: as of %1 (stale)")
                    .arg(m_freshness.shownRunAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")))
              : QStringLiteral("Domains (worst first)"));
    m_domainTitle->setToolTip(why);
    if (stale && !m_staleTicker.isActive())
        m_staleTicker.start();
    else if (!stale)
        m_staleTicker.stop();
    updateApproval();
}

bool MainWindow::exportCandidates(const QString &path, QString *error) const
{
    QList<const CandidateRow *> rows;
    rows.reserve(m_proxy->rowCount());
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        if (const CandidateRow *row =
                m_candidates->rowAt(m_proxy->mapToSource(m_proxy->index(r, 0)).row()))
            rows << row;
    ExportedRun run;
    if (m_lastCompleted) {
        run.runId = m_lastCompleted->runId;
        run.startedAt = m_lastCompleted->startedAt;
    }
    run.ageReference = m_candidates->referenceTime();
    run.stale = m_freshness.stale();
    run.staleWhy = m_freshness.explanation(QDateTime::currentDateTimeUtc());
    return writeCandidates(path, rows, run, error);
}

void MainWindow::openExportDialog()
{
    auto *dialog = new QFileDialog(
        this, QStringLiteral("Export the %1 candidates shown").arg(m_proxy->rowCount()));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilters({QStringLiteral("CSV (*.csv)"), QStringLiteral("JSON (*.json)")});
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    const QString stamp =
        (m_lastCompleted ? m_lastCompleted->startedAt : QDateTime::currentDateTime())
            .toLocalTime()
            .toString(QStringLiteral("yyyyMMdd-HHmmss"));
    dialog->selectFile(QStringLiteral("reclaim-candidates-%1.csv").arg(stamp));
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog](const QString &filter) {
        dialog->setDefaultSuffix(filter.startsWith(QStringLiteral("JSON")) ? QStringLiteral("json")
                                                                           : QStringLiteral("csv"));
    });
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        QString error;
        if (exportCandidates(path, &error)) {
            m_banner->clearMessage(QStringLiteral("export"));
            statusBar()->showMessage(
                QStringLiteral("Exported %1 candidates to %2").arg(m_proxy->rowCount()).arg(path),
                15000);
        } else {
            m_banner->setMessage(QStringLiteral("export"), Banner::Severity::Warning,
                                 QStringLiteral("Export failed: %1.").arg(error));
        }
    });
    dialog->open();
}

AuditView *MainWindow::openAuditHistory(const AuditFilter &filter)
{
    if (!m_audit) {
        m_audit = new AuditView(this);
        connect(m_audit, &AuditView::jobSearched, this, &MainWindow::findJob);
        if (m_config)
            m_audit->setConfig(*m_config);
    }
    m_audit->setFilter(filter);
    m_audit->setJobNote(filter.rowId.isEmpty() ? QString() : jobNote(filter.rowId));
    m_audit->show();
    m_audit->raise();
    m_audit->activateWindow();
    return m_audit;
}

void MainWindow::findJob(const QString &rowId)
{
    if (!m_audit)
        return;
    m_lookedUp = rowId;
    m_audit->setJobNote(rowId.isEmpty() ? QString() : jobNote(rowId));
    // The row and its queues now, whatever its status: on the worker thread, answered below.
    if (!rowId.isEmpty() && m_session->explainJob(rowId))
        m_audit->setJobNote(jobNote(rowId) +
                            QStringLiteral("<br><i>Looking the row and its queues up\u2026</i>"));
    // A candidate of the latest run is selected in the main window too.
    for (const DomainReport &d : m_lastCompleted ? m_lastCompleted->domains : QList<DomainReport>())
        if (m_lastCompleted->find(d.name, rowId)) {
            selectCandidate(d.name + u'/' + rowId);
            break;
        }
}

QString MainWindow::jobNote(const QString &rowId) const
{
    if (!m_lastCompleted)
        return QStringLiteral("No run has completed yet: only the audit history is shown.");
    QStringList lines;
    for (const DomainReport &d : m_lastCompleted->domains) {
        const CandidateVerdict *v = m_lastCompleted->find(d.name, rowId);
        if (!v)
            continue;
        QString line =
            QStringLiteral("<b>%1/%2</b>: <b style='color:%3'>%4</b> &mdash; %5; row "
                           "status %6, updatedAt %7")
                .arg(d.name.toHtmlEscaped(), rowId.toHtmlEscaped(), verdictColor(v->verdict).name(),
                     verdictName(v->verdict), redactSecrets(v->summary()).toHtmlEscaped(),
                     v->candidate.status.toHtmlEscaped(),
                     v->candidate.updatedAtText.toHtmlEscaped());
        if (const Action *a = m_actions->actionFor(d.name + u'/' + rowId))
            line += QStringLiteral("; %1: %2")
                        .arg(actionKindName(a->kind), actionOutcomeText(*a).toHtmlEscaped());
        lines << line;
    }
    const QString when = hhmmss(m_lastCompleted->startedAt);
    if (lines.isEmpty())
        return QStringLiteral("<i>%1 is not a candidate of the run at %2</i> (no row of that id "
                              "was stuck in a candidate status past its threshold); its audit "
                              "history is below.")
            .arg(rowId.toHtmlEscaped(), when);
    return QStringLiteral("In the run at %1: ").arg(when) + lines.join(QStringLiteral("<br>"));
}

QTableView *MainWindow::candidateView() const
{
    return m_candidatesPanel->view();
}

bool MainWindow::selectCandidate(const QString &key)
{
    return m_candidatesPanel->select(key);
}

void MainWindow::setCurrentKey(const QString &key)
{
    m_currentKey = key;
    m_syncingSelection = true;
    m_actionsPanel->selectKey(key);
    m_syncingSelection = false;
    refreshDetails();
    updateApproval();
}

void MainWindow::refreshDetails()
{
    const CandidateTableModel::Row *row = m_candidates->rowForKey(m_currentKey);
    m_details->showRow(row);
}

QString MainWindow::approvalBlocker() const
{
    if (m_currentKey.isEmpty())
        return QStringLiteral("Select a job with a planned action.");
    // What the job is decides first: an UNKNOWN or SCHEDULED job never has anything to approve.
    const CandidateTableModel::Row *row = m_candidates->rowForKey(m_currentKey);
    const Action *action = m_actions->actionFor(m_currentKey);
    if (row && row->verdict->verdict == Verdict::Unknown)
        return QStringLiteral("UNKNOWN: Reclaim could not look, so there is nothing to approve; it "
                              "looks again next run.");
    if (row && row->verdict->verdict == Verdict::Scheduled)
        return QStringLiteral("SCHEDULED: the job is in its queue; nothing to do.");
    if (m_options.readOnly)
        return QStringLiteral("Read-only console (--read-only): approvals are off.");
    if (!m_session->hasConfig())
        return QStringLiteral("Not connected: fix the connection profile first.");
    if (!action)
        return QStringLiteral("No action is planned for this job.");
    if (m_actions->isApproving(m_currentKey))
        return QStringLiteral("Running: re-checking under the lock, then executing\u2026");
    if (m_actions->isRecording(m_currentKey))
        return QStringLiteral("Recording the rejection (or its undo) in the database\u2026");
    if (action->result == ActionResult::Rejected)
        return QStringLiteral("Rejected by %1 at %2: not offered again while the row keeps this "
                              "status and updatedAt. Undo the rejection (Ctrl+Z) to approve it.")
            .arg(action->rejectedBy.isEmpty() ? QStringLiteral("an operator") : action->rejectedBy,
                 hhmmss(action->executedAt));
    if (action->result != ActionResult::Pending)
        return QStringLiteral("Already done: %1 at %2.")
            .arg(actionResultText(action->result), hhmmss(action->executedAt));
    if (m_freshness.stale())
        return m_freshness.approvalHold(QDateTime::currentDateTimeUtc());
    if (!row)
        return QStringLiteral("The job is no longer a candidate in the latest run.");
    return {};
}

void MainWindow::updateApproval()
{
    const QString blocker = approvalBlocker();
    const Action *action = m_actions->actionFor(m_currentKey);
    const bool busy = m_actions->isApproving(m_currentKey) || m_actions->isRecording(m_currentKey);
    const bool pending = action && action->result == ActionResult::Pending && !busy;
    m_approve->setEnabled(blocker.isEmpty());
    m_reject->setEnabled(!m_options.readOnly && pending && m_session->hasConfig());
    m_undoReject->setEnabled(!m_options.readOnly && action &&
                             action->result == ActionResult::Rejected && !busy &&
                             m_session->hasConfig());
    m_approve->setText(pending ? QStringLiteral("Approve %1").arg(actionKindName(action->kind))
                               : QStringLiteral("Approve"));
    m_approve->setIconText(m_approve->text() +
                           QStringLiteral(" (A)")); // the button says its shortcut
    m_approve->setToolTip(
        blocker.isEmpty()
            ? QStringLiteral("Run this action now (A). Reclaim takes the lock and looks the job up "
                             "again first; if it is no longer ABSENT, nothing is done.")
            : blocker);
    // The pane under the actions table names the action and its precondition in full.
    m_actionsPanel->setApprovalHint(
        blocker.isEmpty() ? QStringLiteral("Re-checked under the lock before it runs.") : blocker);
}

void MainWindow::approveCurrent()
{
    if (!approvalBlocker().isEmpty())
        return;
    const CandidateTableModel::Row *row = m_candidates->rowForKey(m_currentKey);
    const Action *action = m_actions->actionFor(m_currentKey);
    if (!m_session->approve(*action, row->verdict->candidate))
        return;
    m_actions->setApproving(m_currentKey, true);
    m_candidates->setApproving(m_currentKey, true);
    refreshDetails();
    updateApproval();
}

// A rejection is the operator's decision, so it is recorded (reclaim.rejection and its audit
// row) before it is shown: until the database answers the action reads "rejecting…", and if the
// write fails it stays awaiting approval with the reason in the banner.
void MainWindow::rejectCurrent()
{
    const Action *action = m_actions->actionFor(m_currentKey);
    if (m_options.readOnly || !action || action->result != ActionResult::Pending ||
        m_actions->isApproving(m_currentKey) || m_actions->isRecording(m_currentKey))
        return;
    if (!m_session->reject(*action))
        return;
    m_actions->setRecording(m_currentKey, true);
    refreshDetails();
    updateApproval();
}

void MainWindow::undoRejectionCurrent()
{
    const Action *action = m_actions->actionFor(m_currentKey);
    if (m_options.readOnly || !action || action->result != ActionResult::Rejected ||
        m_actions->isRecording(m_currentKey))
        return;
    if (!m_session->undoRejection(*action))
        return;
    m_actions->setRecording(m_currentKey, true);
    refreshDetails();
    updateApproval();
}

void MainWindow::showRejection(const Action &action, const QString &error, bool undo)
{
    m_actions->setRecording(action.id, false);
    const QString what = undo ? QStringLiteral("Undoing the rejection of %1").arg(action.id)
                              : QStringLiteral("Rejecting %1").arg(action.id);
    if (!error.isEmpty()) {
        m_banner->setMessage(
            QStringLiteral("rejection"), Banner::Severity::Warning,
            QStringLiteral("%1 was not recorded: %2. The action is unchanged (%3).")
                .arg(what, redactSecrets(error), actionResultText(action.result)));
    } else {
        m_banner->clearMessage(QStringLiteral("rejection"));
        m_actions->updateAction(action);
        m_candidates->updateAction(action);
        if (!undo)
            m_chart->recordAction(action);
        statusBar()->showMessage(
            undo
                ? QStringLiteral("Rejection of %1 undone: it can be approved again.").arg(action.id)
                : QStringLiteral("%1 %2: %3, recorded in reclaim.audit")
                      .arg(actionKindName(action.kind), action.id, actionOutcomeText(action)),
            15000);
    }
    if (action.id == m_currentKey)
        refreshDetails();
    updateApproval();
    emit rejectionShown(action, error);
}

} // namespace reclaim::ui
