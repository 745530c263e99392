// The planned actions and their results, with Approve (A) and Reject (R, Delete) for the action
// of the selected job. Says why approval is unavailable when it is.
#pragma once

#include <QWidget>

class QAction;
class QLabel;
class QTableView;

namespace reclaim::ui {

class ActionsModel;

class ActionsPanel final : public QWidget
{
    Q_OBJECT
public:
    ActionsPanel(ActionsModel *model, QAction *approve, QAction *reject, QWidget *parent = nullptr);

    // Selects the action of `key` (if it has one) without echoing actionSelected.
    void selectKey(const QString &key);
    // Why the approve button is disabled ("" when it is enabled), shown under the buttons.
    void setApprovalHint(const QString &hint);
    void updateTitle();
    QTableView *view() const { return m_view; }

signals:
    void actionSelected(const QString &key);

private:
    ActionsModel *m_model;
    QTableView *m_view;
    QLabel *m_title;
    QLabel *m_hint;
    bool m_selecting = false;
};

} // namespace reclaim::ui
