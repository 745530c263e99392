// The candidates table with its filter bar: free text, one toggle per verdict (with its count),
// and how many rows the filter leaves; above the table, when the rows are an earlier run's, a
// note saying so.
#pragma once

#include "domain/runreport.h"

#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace reclaim::ui {

class CandidateFilterProxy;
class CandidateTableModel;

class CandidatesPanel final : public QWidget
{
    Q_OBJECT
public:
    CandidatesPanel(CandidateTableModel *model, CandidateFilterProxy *proxy,
                    QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    // Selects and shows the row of `key`; false when the filter hides it or it does not exist.
    bool select(const QString &key);
    // Verdict counts of the last completed run (null: none yet, shown as a dash, not zero).
    void setCounts(const RunReport *report);
    void focusFilter();
    // The verdict toggles (checkable, "Show UNKNOWN rows", ...), for the menu and its shortcuts.
    QList<QAction *> verdictActions() const;
    // The stale note over the table ("" hides it).
    void setStaleNote(const QString &text);
    QString staleNote() const;
    QLabel *staleNoteLabel() const { return m_stale; }

signals:
    // The operator moved to another row.
    void currentKeyChanged(const QString &key);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateShown();
    void fitColumns();

    CandidateTableModel *m_model;
    CandidateFilterProxy *m_proxy;
    QLineEdit *m_filter;
    QAction *m_verdictActions[3] = {};
    QLabel *m_shown;
    qsizetype m_unlisted = 0; // SCHEDULED candidates the last run counted without listing
    QLabel *m_stale;
    QTableView *m_view;
};

} // namespace reclaim::ui
