// The planned actions and their results, with Approve (A) and Reject (R, Delete) for the action
// of the selected job. Says why approval is unavailable when it is. The table keeps the result
// and the precondition in view at any width (the job id and the detail give way first), and the
// pane below it says the selected action's precondition, result and detail in full.
#pragma once

#include <QTimer>
#include <QWidget>
#include <optional>

class QAction;
class QHBoxLayout;
class QLabel;
class QToolButton;
class QTableView;

namespace reclaim::ui {

class ActionsModel;
class SampledTableView;

class ActionsPanel final : public QWidget
{
    Q_OBJECT
public:
    ActionsPanel(ActionsModel *model, QAction *approve, QAction *reject, QWidget *parent = nullptr);

    // Selects the action of `key` (if it has one) without echoing actionSelected.
    void selectKey(const QString &key);
    // Why the approve button is disabled ("" when it is enabled), shown next to the buttons.
    void setApprovalHint(const QString &hint);
    void updateTitle();
    QTableView *view() const;
    QString title() const;
    // The pane under the table: the selected action in full (plain text, for tests).
    QString selectedText() const;
    // Undo of a rejection: its button takes the Reject button's place while it is enabled, so
    // the way back is where the operator's eyes already are.
    void setUndoAction(QAction *undo);

signals:
    void actionSelected(const QString &key);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // What each column needs, measured once per model change: a resize only redistributes.
    struct ColumnNeeds
    {
        int job = 0;
        int time = 0;
        int result = 0;
        int kind = 0;
        int precondition = 0;      // with fractions of a second
        int preconditionWhole = 0; // whole seconds only
    };
    void fitColumns();
    ColumnNeeds measureColumns();
    void updateSelected();
    void keepCurrentWhole();

    ActionsModel *m_model;
    SampledTableView *m_view;
    QLabel *m_title;
    QLabel *m_hint;
    QLabel *m_selected;
    QHBoxLayout *m_buttons = nullptr;
    QToolButton *m_rejectButton = nullptr;
    bool m_selecting = false;
    bool m_fitting = false;
    std::optional<ColumnNeeds> m_needs; // nullopt: the model changed since the last measure
    QTimer m_fitTimer;
};

} // namespace reclaim::ui
