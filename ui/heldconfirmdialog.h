// The confirmation before more than one held action is decided at once (#29): it states how
// many, of which kinds, and every reason that held them (the guard's words, with its counts),
// so the operator approves what they have read, not a number. A rejection also asks why; the
// reason is recorded with it. Opened window-modal and non-blocking (open()), like every dialog
// of the console.
#pragma once

#include "heldactionsmodel.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

namespace reclaim::ui {

class HeldConfirmDialog final : public QDialog
{
    Q_OBJECT
public:
    enum class Decision
    {
        Approve,
        Reject
    };

    // `groups` are what the decision covers, each with its open ids (the ones decided).
    HeldConfirmDialog(Decision decision, const QList<HeldActionsModel::GroupSummary> &groups,
                      QWidget *parent = nullptr);

    Decision decision() const { return m_decision; }
    QList<qint64> ids() const { return m_ids; }
    QString reason() const; // the rejection's reason ("" for an approval)
    QString text() const;   // what the dialog states, as plain text (tests)
    QPushButton *confirmButton() const { return m_confirm; }

private:
    Decision m_decision;
    QList<qint64> m_ids;
    QLabel *m_text;
    QLineEdit *m_reason = nullptr;
    QPushButton *m_confirm;
};

} // namespace reclaim::ui
