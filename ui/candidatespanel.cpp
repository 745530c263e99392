#include "candidatespanel.h"

#include "candidatefilterproxy.h"
#include "candidatetablemodel.h"
#include "tablestyle.h"
#include "verdictstyle.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {
constexpr Verdict kVerdicts[3] = {Verdict::Unknown, Verdict::Absent, Verdict::Scheduled};
const char *const kWords[3] = {"Unknown", "Absent", "Scheduled"};
} // namespace

CandidatesPanel::CandidatesPanel(CandidateTableModel *model, CandidateFilterProxy *proxy,
                                 QWidget *parent)
    : QWidget(parent), m_model(model), m_proxy(proxy), m_filter(new QLineEdit(this)),
      m_shown(new QLabel(this)), m_view(new QTableView(this))
{
    auto *title = new QLabel(QStringLiteral("Candidates"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    m_filter->setPlaceholderText(
        QStringLiteral("Filter: job id, type, status, queue, error\u2026 (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setText(text);
        updateShown();
    });

    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(title);
    filterRow->addWidget(m_filter, 1);
    for (int i = 0; i < 3; ++i) {
        auto *b = new QToolButton(this);
        b->setCheckable(true);
        b->setChecked(true);
        b->setIcon(verdictIcon(kVerdicts[i]));
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setToolTip(verdictMeaning(kVerdicts[i]) +
                      QStringLiteral("\nClick to show or hide these rows."));
        const Verdict v = kVerdicts[i];
        connect(b, &QToolButton::toggled, this, [this, v](bool on) {
            m_proxy->setVerdictShown(v, on);
            updateShown();
        });
        m_verdictButtons[i] = b;
        filterRow->addWidget(b);
    }
    filterRow->addWidget(m_shown);

    configureTable(m_view);
    m_view->setModel(proxy);
    m_view->horizontalHeader()->setSortIndicator(CandidateTableModel::VerdictColumn,
                                                 Qt::AscendingOrder);
    m_view->setSortingEnabled(true);
    m_view->horizontalHeader()->setSectionResizeMode(CandidateTableModel::EvidenceColumn,
                                                     QHeaderView::Stretch);
    const int widths[] = {112, 80, 140, 86, 100, 96, 0, 200};
    for (int c = 0; c < CandidateTableModel::ColumnCount; ++c)
        if (widths[c] > 0)
            m_view->setColumnWidth(c, widths[c]);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(filterRow);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    emit currentKeyChanged(current.data(CandidateTableModel::KeyRole).toString());
            });
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(proxy, signal, this, &CandidatesPanel::updateShown);
    connect(proxy, &QAbstractItemModel::modelReset, this, &CandidatesPanel::updateShown);
    connect(proxy, &QAbstractItemModel::layoutChanged, this, &CandidatesPanel::updateShown);
    setCounts(nullptr);
}

bool CandidatesPanel::select(const QString &key)
{
    const int sourceRow = m_model->indexOfKey(key);
    if (sourceRow < 0)
        return false;
    const QModelIndex idx = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!idx.isValid())
        return false;
    m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
    m_view->scrollTo(idx);
    return true;
}

void CandidatesPanel::setCounts(const RunReport *report)
{
    for (int i = 0; i < 3; ++i) {
        // Before the first completed run there are no counts, which is not the same as zero.
        const QString n =
            report ? QString::number(report->count(kVerdicts[i])) : QStringLiteral("\u2014");
        m_verdictButtons[i]->setText(
            QStringLiteral("%1 %2").arg(QString::fromLatin1(kWords[i]), n));
    }
    updateShown();
}

void CandidatesPanel::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void CandidatesPanel::updateShown()
{
    m_shown->setText(
        QStringLiteral("%1 of %2 shown").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
}

} // namespace reclaim::ui
