#include "actionspanel.h"

#include "actionsmodel.h"
#include "tablestyle.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace reclaim::ui {

ActionsPanel::ActionsPanel(ActionsModel *model, QAction *approve, QAction *reject, QWidget *parent)
    : QWidget(parent), m_model(model), m_view(new QTableView(this)), m_title(new QLabel(this)),
      m_hint(new QLabel(this))
{
    m_view->setModel(model);
    configureTable(m_view);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->setColumnWidth(ActionsModel::ResultColumn, 150);
    m_view->setColumnWidth(ActionsModel::KindColumn, 78);
    m_view->setColumnWidth(ActionsModel::JobColumn, 200);
    m_view->setColumnWidth(ActionsModel::TimeColumn, 110);
    m_view->setColumnWidth(ActionsModel::PreconditionColumn, 330);
    m_view->setColumnWidth(ActionsModel::DetailColumn, 400);

    auto *approveButton = new QToolButton(this);
    approveButton->setDefaultAction(approve);
    approveButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // Wide enough for the longest label, so the button does not jump as the selection changes.
    approveButton->setMinimumWidth(
        approveButton->fontMetrics().horizontalAdvance(QStringLiteral("Approve REQUEUE (A)")) + 24);
    auto *rejectButton = new QToolButton(this);
    rejectButton->setDefaultAction(reject);
    rejectButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("color:#455a64"));

    auto *top = new QHBoxLayout;
    top->addWidget(m_title);
    top->addStretch(1);
    top->addWidget(approveButton);
    top->addWidget(rejectButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_hint);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (!m_selecting && current.isValid())
                    emit actionSelected(current.data(ActionsModel::KeyRole).toString());
            });
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, &ActionsPanel::updateTitle);
    connect(model, &QAbstractItemModel::dataChanged, this, &ActionsPanel::updateTitle);
    connect(model, &QAbstractItemModel::modelReset, this, &ActionsPanel::updateTitle);
    updateTitle();
}

void ActionsPanel::updateTitle()
{
    const int pending = m_model->pendingCount();
    m_title->setText(m_model->readOnly()
                         ? QStringLiteral("Actions: %1 planned (read-only: none will run)")
                               .arg(m_model->rowCount())
                         : QStringLiteral("Actions: %1 awaiting approval, %2 in total")
                               .arg(pending)
                               .arg(m_model->rowCount()));
}

void ActionsPanel::selectKey(const QString &key)
{
    const int row = m_model->rowOf(key);
    m_selecting = true;
    if (row < 0) {
        m_view->selectionModel()->clearSelection();
    } else {
        const QModelIndex idx = m_model->index(row, 0);
        m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        m_view->scrollTo(idx);
    }
    m_selecting = false;
}

void ActionsPanel::setApprovalHint(const QString &hint)
{
    m_hint->setText(hint);
    m_hint->setToolTip(hint);
}

} // namespace reclaim::ui
