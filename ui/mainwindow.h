// The operator console's main window: domains worst first, the candidates with their evidence,
// the lock, the planned actions to approve one at a time, the recent runs, and (in a tab of its
// own) the actions runners held for an operator. It renders
// reports and sends commands; every I/O call happens on the session's worker thread.
#pragma once

#include "candidaterows.h"
#include "connectionprofile.h"
#include "domain/runreport.h"
#include "freshness.h"
#include "ports/audittrail.h"
#include "service/recoveryworker.h"

#include <QMainWindow>
#include <QTimer>
#include <optional>

class QAction;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;

namespace reclaim::ui {

class ActionsModel;
class ActionsPanel;
class AuditView;
class Banner;
class CandidateApprovals;
class CandidateFilterProxy;
class CandidatesPanel;
class CandidateTableModel;
class ConnectionStatus;
class ConsoleSession;
class DetailsPanel;
class DomainListModel;
class HeldPanel;
class LockPanel;
class RunChart;
class RunControls;
class Settings;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    struct Options
    {
        bool readOnly = false;
        bool rememberProfile = true; // false: never write the settings (screenshots, tests)
        int lockPeekMs = 3000;
    };

    MainWindow(Settings &settings, ConnectionProfile profile, Options options,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    // Loads the profile's configuration and, if it loads, starts the first run. A configuration
    // that does not load is shown in the window, with the profile dialog one click away.
    void start();

    // Renders a run's report (tests and benchmarks feed reports here; the session hands over
    // the candidate rows built off the UI thread, see the other overload).
    void showReport(const RunReport &report);
    // The same with the candidate table's rows already built from `report`.
    void showReport(const RunReport &report, CandidateRows rows);
    void showLockStatus(const LockStatus &status);
    void showActionResult(const Action &action);

    // Selects the candidate `key` ("<domain>/<row id>") in the table, if it is shown.
    bool selectCandidate(const QString &key);
    QString currentKey() const { return m_currentKey; }
    // Why approving the current selection is not possible ("" when it is).
    QString approvalBlocker() const;
    // Shows the held actions' tab (true) or the candidates' (false).
    void showHeldActions(bool show);
    // Whether the tables show the latest run, or an earlier one (the latest did not complete).
    const Freshness &freshness() const { return m_freshness; }

    // Writes the candidates the table shows (filter applied, in its order) to `path`: JSON for
    // a ".json" name, CSV otherwise. False, and why in `error`, when it cannot.
    bool exportCandidates(const QString &path, QString *error = nullptr) const;
    // Asks where to export (a non-blocking file dialog), then exports.
    void openExportDialog();

    // The audit history window (created on first use), its filter set to `filter`.
    AuditView *openAuditHistory(const AuditFilter &filter = {});
    AuditView *auditView() const { return m_audit; }
    // Find a job by id: its audit history, and what the latest run saw of it, if anything.
    void findJob(const QString &rowId);
    // What the latest completed run saw of rows with this id ("" when none is a candidate).
    QString jobNote(const QString &rowId) const;

    ConsoleSession *session() const { return m_session; }
    CandidateTableModel *candidateModel() const { return m_candidates; }
    CandidateFilterProxy *candidateProxy() const { return m_proxy; }
    QTableView *candidateView() const;
    DomainListModel *domainModel() const { return m_domains; }
    QTableView *domainView() const { return m_domainView; }
    ActionsModel *actionsModel() const { return m_actions; }
    ActionsPanel *actionsPanel() const { return m_actionsPanel; }
    LockPanel *lockPanel() const { return m_lock; }
    DetailsPanel *detailsPanel() const { return m_details; }
    RunChart *runChart() const { return m_chart; }
    Banner *banner() const { return m_banner; }
    QAction *approveAction() const;
    QAction *rejectAction() const;
    QAction *undoRejectionAction() const;
    HeldPanel *heldPanel() const { return m_held; }
    QTabWidget *tabs() const { return m_tabs; }
    QAction *runNowAction() const { return m_runNow; }
    QAction *exportAction() const { return m_export; }
    QAction *auditHistoryAction() const { return m_auditHistory; }
    QAction *findJobAction() const { return m_findJob; }
    int reportsShown() const { return m_reportsShown; }
    bool lockShown() const { return m_lockShown; }

signals:
    void reportShown();
    void lockStatusShown();
    void actionResultShown(const reclaim::Action &action);
    // A rejection (or its undo) came back from the database: recorded, or `error` says why not.
    void rejectionShown(const reclaim::Action &action, const QString &error);
    // Find job by id: the lookup of the row and its queues came back and is shown.
    void jobExplanationShown(const QString &rowId);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void buildActions();
    void buildMenus();
    void buildLayout();
    void restoreLayout();
    void applyDefaultSizes();
    void fitDomainColumn();
    void showFreshness();
    void applyConfig(const ReclaimConfig &config);
    void showConfigProblem(const QString &problem);
    void openProfileDialog();
    void setCurrentKey(const QString &key);
    void refreshDetails();
    void updateApproval();
    void showWaiting();

    Settings &m_settings;
    ConnectionProfile m_profile;
    Options m_options;
    ConsoleSession *m_session;

    DomainListModel *m_domains;
    QSortFilterProxyModel *m_domainProxy;
    CandidateTableModel *m_candidates;
    CandidateFilterProxy *m_proxy;
    ActionsModel *m_actions;

    Banner *m_banner = nullptr;
    RunControls *m_runControls = nullptr;
    QTableView *m_domainView = nullptr;
    CandidatesPanel *m_candidatesPanel = nullptr;
    DetailsPanel *m_details = nullptr;
    LockPanel *m_lock = nullptr;
    RunChart *m_chart = nullptr;
    ActionsPanel *m_actionsPanel = nullptr;
    CandidateApprovals *m_approvals = nullptr;
    HeldPanel *m_held = nullptr;
    QTabWidget *m_tabs = nullptr;
    QSplitter *m_outer = nullptr;
    QSplitter *m_center = nullptr;
    QSplitter *m_bottom = nullptr;
    QSplitter *m_left = nullptr;
    ConnectionStatus *m_connection = nullptr;

    QAction *m_runNow = nullptr;
    QAction *m_showHeld = nullptr;
    QAction *m_profileAction = nullptr;
    QAction *m_export = nullptr;
    QAction *m_auditHistory = nullptr;
    QAction *m_findJob = nullptr;
    QAction *m_exportAudit = nullptr;
    QAction *m_quit = nullptr;
    QLabel *m_domainTitle = nullptr;
    AuditView *m_audit = nullptr;
    QString m_lookedUp; // the id Find job by id asked about last
    std::optional<ReclaimConfig> m_config;

    QString m_currentKey;
    bool m_syncingSelection = false;
    int m_reportsShown = 0;
    bool m_lockShown = false;
    bool m_layoutRestored = false; // sizes came from the settings: keep them
    bool m_defaultSizesApplied = false;
    std::optional<RunReport> m_lastCompleted;
    Freshness m_freshness;
    QTimer m_staleTicker; // the stale rows' age moves on while the outage lasts
};

} // namespace reclaim::ui
