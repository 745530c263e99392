#include "actionspanel.h"

#include "actionsmodel.h"
#include "counttext.h"
#include "sampledtableview.h"
#include "tablestyle.h"
#include "verdictstyle.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

// A job id cut short keeps its domain and its end, the parts that tell jobs apart; prose (the
// detail) is cut at the end as usual.
class MiddleElided final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideMiddle;
    }
};

} // namespace

ActionsPanel::ActionsPanel(ActionsModel *model, QAction *approve, QAction *reject, QWidget *parent)
    : QWidget(parent), m_model(model), m_view(new SampledTableView(this)),
      m_title(new QLabel(this)), m_hint(new QLabel(this)), m_selected(new QLabel(this))
{
    m_view->setModel(model);
    configureTable(m_view);
    m_view->setItemDelegateForColumn(ActionsModel::JobColumn, new MiddleElided(m_view));
    QHeaderView *header = m_view->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Fixed); // fitColumns decides, at every width
    header->setMinimumSectionSize(24);
    m_view->viewport()->installEventFilter(this);

    auto *approveButton = new QToolButton(this);
    approveButton->setDefaultAction(approve);
    approveButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // Wide enough for the longest label, so the button does not jump as the selection changes.
    approveButton->setMinimumWidth(
        approveButton->fontMetrics().horizontalAdvance(QStringLiteral("Approve REQUEUE (A)")) + 24);
    auto *rejectButton = new QToolButton(this);
    rejectButton->setDefaultAction(reject);
    rejectButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_rejectButton = rejectButton;
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("color:#455a64"));
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_selected->setWordWrap(true);
    m_selected->setTextFormat(Qt::RichText);
    m_selected->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_selected->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    // The title on its own line: next to the buttons it ran under them in a narrow panel.
    auto *buttons = new QHBoxLayout;
    m_buttons = buttons;
    buttons->addWidget(approveButton, 0, Qt::AlignTop);
    buttons->addWidget(rejectButton, 0, Qt::AlignTop);
    buttons->addWidget(m_hint, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_selected);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                updateSelected();
                if (!m_selecting && current.isValid())
                    emit actionSelected(current.data(ActionsModel::KeyRole).toString());
            });
    // Columns are re-fitted once the model has settled, not on every notification: measuring
    // a column reads rows, and a report announces many changes at once.
    m_fitTimer.setSingleShot(true);
    m_fitTimer.setInterval(0);
    connect(&m_fitTimer, &QTimer::timeout, this, &ActionsPanel::fitColumns);
    auto changed = [this] {
        if (m_fitting)
            return; // the fit's own switch of the precondition's format
        m_needs.reset();
        updateTitle();
        updateSelected();
        m_fitTimer.start();
    };
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, changed);
    connect(model, &QAbstractItemModel::dataChanged, this, changed);
    connect(model, &QAbstractItemModel::modelReset, this, changed);
    updateTitle();
    updateSelected();
}

bool ActionsPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::FontChange)
        m_needs.reset();
    if (watched == m_view->viewport() &&
        (event->type() == QEvent::Resize || event->type() == QEvent::FontChange))
        fitColumns();
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        keepCurrentWhole();
    return QWidget::eventFilter(watched, event);
}

// A column's width is the widest of its header and of the cells that can differ: the rows on
// screen and the model's samples of every shape the column's text takes. Measuring each of
// 20,000 rows (or Qt's default sample of a thousand per column) stalled a report's first
// apply by tens of milliseconds.
ActionsPanel::ColumnNeeds ActionsPanel::measureColumns()
{
    QHeaderView *header = m_view->horizontalHeader();
    const int top = std::max(0, m_view->rowAt(0));
    int bottom = m_view->rowAt(m_view->viewport()->height() - 1);
    if (bottom < 0)
        bottom = std::min(m_model->rowCount() - 1, top + 64);
    auto wanted = [&](int column) {
        QList<int> rows = m_model->widthSampleRows(column);
        for (int row = top; row <= bottom; ++row)
            rows << row;
        return std::max(header->sectionSizeHint(column), m_view->widthHintForRows(column, rows));
    };
    ColumnNeeds needs;
    m_model->setWholeSeconds(false);
    needs.job = wanted(ActionsModel::JobColumn);
    needs.time = wanted(ActionsModel::TimeColumn);
    needs.result = wanted(ActionsModel::ResultColumn);
    needs.kind = wanted(ActionsModel::KindColumn);
    needs.precondition = wanted(ActionsModel::PreconditionColumn);
    m_model->setWholeSeconds(true);
    needs.preconditionWhole = wanted(ActionsModel::PreconditionColumn);
    return needs;
}

void ActionsPanel::fitColumns()
{
    if (m_fitting)
        return;
    m_fitting = true;
    if (!m_needs)
        m_needs = measureColumns();
    const ColumnNeeds &needs = *m_needs;
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('m'));
    int room = m_view->viewport()->width() - needs.result - needs.kind;
    const int jobReadable = std::min(needs.job, em * 10);
    const bool wholeSeconds = room - needs.precondition < jobReadable;
    const int precondition = wholeSeconds ? needs.preconditionWhole : needs.precondition;
    m_model->setWholeSeconds(wholeSeconds);
    m_view->setColumnWidth(ActionsModel::ResultColumn, needs.result);
    m_view->setColumnWidth(ActionsModel::KindColumn, needs.kind);
    m_view->setColumnWidth(ActionsModel::PreconditionColumn, precondition);
    room -= precondition;
    // The job gives way before the precondition does: the pane below names it in full.
    const int job = std::clamp(room, std::min(needs.job, em * 3), needs.job);
    m_view->setColumnWidth(ActionsModel::JobColumn, job);
    room -= job;
    const bool showTime = room >= needs.time;
    m_view->setColumnHidden(ActionsModel::TimeColumn, !showTime);
    if (showTime) {
        m_view->setColumnWidth(ActionsModel::TimeColumn, needs.time);
        room -= needs.time;
    }
    const bool showDetail = room >= em * 6;
    m_view->setColumnHidden(ActionsModel::DetailColumn, !showDetail);
    if (showDetail)
        m_view->setColumnWidth(ActionsModel::DetailColumn, room);
    else if (room > 0) // no blank strip at the right: the job id takes the rest
        m_view->setColumnWidth(ActionsModel::JobColumn, job + room);
    m_fitting = false;
}

void ActionsPanel::updateTitle()
{
    const int pending = m_model->pendingCount();
    m_title->setText(m_model->readOnly()
                         ? QStringLiteral("Actions: %1 planned (read-only: none will run)")
                               .arg(countText(m_model->rowCount()))
                         : QStringLiteral("Actions: %1 awaiting approval, %2 in total")
                               .arg(countText(pending), countText(m_model->rowCount())));
}

QTableView *ActionsPanel::view() const
{
    return m_view;
}

QString ActionsPanel::title() const
{
    return m_title->text();
}

void ActionsPanel::updateSelected()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    const Action *a = current.isValid()
                          ? m_model->actionFor(current.data(ActionsModel::KeyRole).toString())
                          : nullptr;
    if (!a) {
        m_selected->setText(QStringLiteral("<i>No action selected.</i>"));
        return;
    }
    const auto esc = [](const QString &s) {
        return s.toHtmlEscaped();
    };
    const bool approving = current.data(ActionsModel::ApprovingRole).toBool();
    const bool recording = current.data(ActionsModel::RecordingRole).toBool();
    QString result;
    if (approving)
        result = QStringLiteral("<b>running\u2026</b>");
    else if (recording)
        result = a->result == ActionResult::Rejected
                     ? QStringLiteral("<b>undoing the rejection\u2026</b>")
                     : QStringLiteral("<b>recording the rejection\u2026</b>");
    else if (a->result == ActionResult::Pending)
        result = QStringLiteral("<b>%1</b>")
                     .arg(m_model->readOnly()         ? QStringLiteral("planned, not run")
                          : m_model->hold().isEmpty() ? actionResultText(a->result)
                                                      : QStringLiteral("on hold"));
    else
        result = QStringLiteral("<b style='color:%1'>%2</b> at %3")
                     .arg(actionResultColor(a->result).name(), esc(actionOutcomeText(*a)),
                          hhmmss(a->executedAt));
    m_selected->setText(QStringLiteral("<b>%1</b> %2: %3 &mdash; %4<br>Only if %5.")
                            .arg(esc(actionKindName(a->kind)), esc(a->id), result,
                                 esc(actionDetailText(*a)),
                                 esc(preconditionText(a->precondition))));
}

QString ActionsPanel::selectedText() const
{
    QTextDocument doc;
    doc.setHtml(m_selected->text());
    return doc.toPlainText();
}

void ActionsPanel::selectKey(const QString &key)
{
    const int row = m_model->rowOf(key);
    m_selecting = true;
    if (row < 0) {
        m_view->selectionModel()->clearSelection();
        m_view->selectionModel()->setCurrentIndex({}, QItemSelectionModel::NoUpdate);
    } else {
        const QModelIndex idx = m_model->index(row, 0);
        m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        // A row already whole on screen stays where it is; one that is not comes to the middle,
        // away from the edges the table's resizing moves.
        if (!m_view->viewport()->rect().contains(m_view->visualRect(idx)))
            m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    }
    m_selecting = false;
    updateSelected();
}

// The selected action's text under the table grows by a line or two once an action is selected,
// and the table shrinks: its current row, whole a moment ago on the lower edge, would be cut.
void ActionsPanel::keepCurrentWhole()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid() && !m_view->viewport()->rect().contains(m_view->visualRect(current)))
        m_view->scrollTo(current, QAbstractItemView::EnsureVisible);
}

void ActionsPanel::setUndoAction(QAction *undo)
{
    auto *undoButton = new QToolButton(this);
    undoButton->setDefaultAction(undo);
    undoButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_buttons->insertWidget(m_buttons->indexOf(m_rejectButton) + 1, undoButton, 0, Qt::AlignTop);
    auto swap = [this, undo, undoButton] {
        undoButton->setVisible(undo->isEnabled());
        m_rejectButton->setVisible(!undo->isEnabled());
    };
    connect(undo, &QAction::changed, this, swap);
    swap();
}

void ActionsPanel::setApprovalHint(const QString &hint)
{
    m_hint->setText(hint);
    m_hint->setToolTip(hint);
}

} // namespace reclaim::ui
