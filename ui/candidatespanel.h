// The candidates table with its filter bar: free text, one toggle per verdict (with its count),
// and how many rows the filter leaves.
#pragma once

#include "domain/runreport.h"

#include <QWidget>

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

signals:
    // The operator moved to another row.
    void currentKeyChanged(const QString &key);

private:
    void updateShown();

    CandidateTableModel *m_model;
    CandidateFilterProxy *m_proxy;
    QLineEdit *m_filter;
    QToolButton *m_verdictButtons[3] = {};
    QLabel *m_shown;
    QTableView *m_view;
};

} // namespace reclaim::ui
