#include "mainwindow.h"

#include "actionsmodel.h"
#include "actionspanel.h"
#include "auditview.h"
#include "banner.h"
#include "candidateapprovals.h"
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
#include "heldactionsmodel.h"
#include "heldpanel.h"
#include "jobexplanationhtml.h"
#include "lockpanel.h"
#include "releaseoffuithread.h"
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
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
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

    m_showHeld = new QAction(QStringLiteral("Held for approval"), this);
    m_showHeld->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    m_showHeld->setToolTip(QStringLiteral(
        "The actions the daemon (or any runner) held for an operator, to approve or reject "
        "(Ctrl+J)."));
    connect(m_showHeld, &QAction::triggered, this, [this] { showHeldActions(true); });

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
    actions->addAction(approveAction());
    actions->addAction(rejectAction());
    actions->addAction(undoRejectionAction());
    actions->addSeparator();
    actions->addAction(m_showHeld);
    // Window-wide shortcuts (text fields still take their own letters first). The held actions'
    // tab brings its own Approve and Reject, active while it is shown.
    addActions({m_runNow, approveAction(), rejectAction(), undoRejectionAction(), m_showHeld,
                m_profileAction, m_export, filter, m_auditHistory, m_findJob, m_exportAudit});
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
    // Each report's rows are built, off the UI thread, in the order the table shows.
    connect(m_candidatesPanel->view()->horizontalHeader(), &QHeaderView::sortIndicatorChanged,
            m_session, [this](int column, Qt::SortOrder order) {
                m_session->setCandidateOrder({column, order});
            });

    // Right: the candidates across the full width, and below them the selected job's evidence
    // next to the actions to approve, so the evidence is in view when approving.
    m_approvals = new CandidateApprovals(
        {m_session, m_actions, m_candidates, &m_freshness, m_banner, m_options.readOnly}, this);
    m_actionsPanel = new ActionsPanel(m_actions, approveAction(), rejectAction(), central);
    m_actionsPanel->setUndoAction(undoRejectionAction());
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

    // The candidates of the console's runs, and beside them in a tab the actions any runner held.
    m_held = new HeldPanel(m_session, central);
    m_tabs = new QTabWidget(central);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_center, QStringLiteral("Candidates"));
    m_tabs->addTab(m_held, QStringLiteral("Held for approval"));

    m_outer = new QSplitter(Qt::Horizontal, central);
    m_outer->addWidget(m_left);
    m_outer->addWidget(m_tabs);
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
    connect(m_approvals, &CandidateApprovals::hintChanged, m_actionsPanel,
            &ActionsPanel::setApprovalHint);
    connect(m_approvals, &CandidateApprovals::detailsChanged, this, [this](const QString &key) {
        if (key == m_currentKey)
            refreshDetails();
    });
    connect(m_approvals, &CandidateApprovals::statusMessage, this,
            [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    connect(m_approvals, &CandidateApprovals::rejected, m_chart, &RunChart::recordAction);
    connect(m_approvals, &CandidateApprovals::rejectionShown, this, &MainWindow::rejectionShown);
    connect(m_approvals, &CandidateApprovals::heldActionDecided, this,
            [this](const Action &action, const QString &message) {
                showActionResult(action);
                statusBar()->showMessage(redactSecrets(message), 15000);
            });
    connect(m_held, &HeldPanel::waitingChanged, this, &MainWindow::showWaiting);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        const bool held = m_tabs->currentWidget() == m_held;
        m_approvals->setShortcutsActive(!held); // one meaning per key
        if (held) {
            m_held->refresh();
            m_held->view()->setFocus(Qt::TabFocusReason);
        }
        showWaiting();
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

void MainWindow::showReport(const RunReport &run, CandidateRows rows)
{
    // The report as its rows were built from it: the same run, each domain's verdicts counted
    // once where the rows were built (off the UI thread).
    const std::shared_ptr<const RunReport> prepared = rows.report;
    const RunReport &report = prepared ? *prepared : run;
    ++m_reportsShown;
    m_runControls->setRunning(false);
    m_runControls->setLastRun(report);
    m_runControls->setNextRun(m_session->nextRunAt());
    m_runNow->setEnabled(m_session->hasConfig() && !m_session->runInFlight());
    m_lock->setRunInFlight(false);
    const PlannedActions planned = rows.actions; // shared: the rows go to the model below
    m_chart->addRun(report, planned);

    std::optional<QDateTime> shownRun;
    if (m_lastCompleted)
        shownRun = m_lastCompleted->startedAt;
    showRunProblems(*m_banner, report, shownRun);
    if (report.outcome == RunReport::Outcome::Completed) {
        m_domains->setReport(report);
        m_candidates->setRows(std::move(rows));
        m_actions->setPlan(planned, report.finishedAt);
        releaseOffUiThread(std::exchange(m_lastCompleted, report));
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
        if (!v && d.unlistedScheduled.contains(rowId)) {
            // Counted, not listed: a healthy job beyond run.scheduledListed. Its evidence was let
            // go; the lookup below shows the queues now.
            lines << QStringLiteral("<b>%1/%2</b>: <b style='color:%3'>%4</b> &mdash; its job was "
                                    "runnable (one of %5 healthy candidates counted, not listed: "
                                    "run.scheduledListed)")
                         .arg(d.name.toHtmlEscaped(), rowId.toHtmlEscaped(),
                              verdictColor(Verdict::Scheduled).name(),
                              verdictName(Verdict::Scheduled))
                         .arg(d.unlistedScheduled.size());
            continue;
        }
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
    return m_approvals->blocker();
}

QAction *MainWindow::approveAction() const
{
    return m_approvals->approveAction();
}

QAction *MainWindow::rejectAction() const
{
    return m_approvals->rejectAction();
}

QAction *MainWindow::undoRejectionAction() const
{
    return m_approvals->undoRejectionAction();
}

void MainWindow::updateApproval()
{
    m_approvals->setCurrentKey(m_currentKey);
}

void MainWindow::showHeldActions(bool show)
{
    m_tabs->setCurrentWidget(show ? static_cast<QWidget *>(m_held) : m_center);
}

// The runners' held actions are what on-call was paged for: the tab says how many wait, and so
// does the banner, whichever tab is shown.
void MainWindow::showWaiting()
{
    const int waiting = m_held->model()->waitingCount();
    const int tab = m_tabs->indexOf(m_held);
    m_tabs->setTabText(
        tab, waiting > 0 ? QStringLiteral("Held for approval (%1)").arg(QLocale().toString(waiting))
                         : QStringLiteral("Held for approval"));
    m_banner->setMessage(QStringLiteral("held"), Banner::Severity::Warning,
                         waiting > 0 && m_tabs->currentWidget() != m_held
                             ? m_held->summary() +
                                   QStringLiteral(" See the Held for approval tab (Ctrl+J).")
                             : QString());
}

} // namespace reclaim::ui
