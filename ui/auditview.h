// The audit history window: reclaim.audit newest first, filtered by job, domain, operator,
// result and time, one page at a time as the operator scrolls, each page read on the audit
// thread (the UI thread never waits for PostgreSQL). Export writes every matching row, also on
// that thread. "Find job by id" opens it with the job filter set.
#pragma once

#include "config/reclaimconfig.h"
#include "ports/audittrail.h"

#include <QTimer>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace reclaim {
class AuditThread;
}

namespace reclaim::ui {

class AuditModel;

class AuditView final : public QWidget
{
    Q_OBJECT
public:
    explicit AuditView(QWidget *parent = nullptr);
    ~AuditView() override;

    // The first call starts the audit thread and loads the first page.
    void setConfig(const ReclaimConfig &config);
    // Sets the filter fields and loads from the newest again.
    void setFilter(const AuditFilter &filter);
    AuditFilter filter() const;
    // Reloads from the newest with the fields' filter.
    void reload();
    // What the console knows of a job the operator looked for (its verdict in the latest run, or
    // that it is no candidate), shown above the table.
    void setJobNote(const QString &html);
    QString jobNote() const;
    // Writes every row matching the filter to `path` on the audit thread; exportFinished says
    // how it went.
    bool exportTo(const QString &path);
    void openExportDialog();
    void focusJobField();

    AuditModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString statusText() const;
    int pagesShown() const { return m_pagesShown; }

signals:
    void pageShown();
    void jobSearched(const QString &rowId);
    void exportFinished(const QString &path, qint64 rows, const QString &error);

private:
    void requestPage();
    void showPage(int ticket, const AuditPage &page, const QString &error);
    void updateStatus();

    std::unique_ptr<AuditThread> m_thread;
    AuditModel *m_model;
    QTableView *m_view;
    QLineEdit *m_job;
    QLineEdit *m_domain;
    QLineEdit *m_actor;
    QComboBox *m_result;
    QComboBox *m_since;
    QPushButton *m_export;
    QLabel *m_note;
    QLabel *m_status;
    QTimer m_debounce;
    AuditFilter m_shownFilter;
    QString m_error;
    int m_ticket = 0;
    int m_pagesShown = 0;
    bool m_exporting = false;
};

} // namespace reclaim::ui
