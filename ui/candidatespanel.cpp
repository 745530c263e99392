#include "candidatespanel.h"

#include "candidatefilterproxy.h"
#include "candidatetablemodel.h"
#include "counttext.h"
#include "tablestyle.h"
#include "verdictstyle.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
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
      m_shown(new QLabel(this)), m_stale(new QLabel(this)), m_view(new QTableView(this))
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
        // The action carries the menu's words; the button shows its icon text, the count.
        auto *toggle =
            new QAction(verdictIcon(kVerdicts[i]),
                        QStringLiteral("Show %1 rows").arg(verdictName(kVerdicts[i])), this);
        toggle->setCheckable(true);
        toggle->setChecked(true);
        toggle->setToolTip(verdictMeaning(kVerdicts[i]) +
                           QStringLiteral("\nShow or hide these rows."));
        const Verdict v = kVerdicts[i];
        connect(toggle, &QAction::toggled, this, [this, v](bool on) {
            m_proxy->setVerdictShown(v, on);
            updateShown();
        });
        auto *b = new QToolButton(this);
        b->setDefaultAction(toggle);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        m_verdictActions[i] = toggle;
        filterRow->addWidget(b);
    }
    filterRow->addWidget(m_shown);

    configureTable(m_view);
    m_view->setModel(proxy);
    m_view->horizontalHeader()->setSortIndicator(CandidateTableModel::VerdictColumn,
                                                 Qt::AscendingOrder);
    m_view->setSortingEnabled(true);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->viewport()->installEventFilter(this);
    fitColumns();

    m_stale->setWordWrap(true);
    m_stale->setStyleSheet(
        QStringLiteral("background:#fff4e5; color:#663c00; border:1px solid #e0b070; padding:3px"));
    m_stale->hide();

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(filterRow);
    layout->addWidget(m_stale);
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
    const VerdictCounts counts = report ? report->counts() : VerdictCounts{};
    for (int i = 0; i < 3; ++i) {
        // Before the first completed run there are no counts, which is not the same as zero.
        const QString n = report ? countText(counts.of(kVerdicts[i])) : QStringLiteral("\u2014");
        m_verdictActions[i]->setIconText(
            QStringLiteral("%1 %2").arg(QString::fromLatin1(kWords[i]), n));
    }
    m_unlisted = 0;
    if (report)
        for (const DomainReport &d : report->domains)
            m_unlisted += d.unlistedScheduled.size();
    updateShown();
}

void CandidatesPanel::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

QList<QAction *> CandidatesPanel::verdictActions() const
{
    return {m_verdictActions[0], m_verdictActions[1], m_verdictActions[2]};
}

bool CandidatesPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

// Widths from the font, so that the words fit wherever the console runs. The short columns
// keep their width; the planned action gives way down to its verb, then the job type (also in
// the details panel's title) steps aside, and the evidence (last, and in full in the details
// panel and the tooltip) takes what is left.
void CandidatesPanel::fitColumns()
{
    QFont boldFont = m_view->font();
    boldFont.setBold(true);
    const QFontMetrics fm = m_view->fontMetrics();
    const int pad = 2 * m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 12;
    const int icon = 16 + 4;
    auto width = [&](const QFontMetrics &metrics, const char *sample) {
        return metrics.horizontalAdvance(QString::fromUtf8(sample)) + pad;
    };
    // When the rows are an earlier run's, the verdict also says "stale".
    const int verdict = width(QFontMetrics(boldFont),
                              !m_stale->isHidden() ? "SCHEDULED \u00b7 stale" : "SCHEDULED") +
                        icon;
    const std::pair<int, int> fixed[] = {
        {CandidateTableModel::VerdictColumn, verdict},
        {CandidateTableModel::DomainColumn, width(fm, "narration_")},
        {CandidateTableModel::IdColumn, width(fm, "sj_qx3njkxtio40_")},
        {CandidateTableModel::TypeColumn, width(fm, "GENERATE")},
        {CandidateTableModel::StatusColumn, width(fm, "PROCESSING")},
        {CandidateTableModel::AgeColumn, width(fm, "23 h 59 min")}};
    const int plannedWanted = width(fm, "REQUEUE to video-generation") + icon;
    const int plannedMinimum = width(fm, "REQUEUE to \u2026") + icon;
    const int evidenceMinimum = fm.horizontalAdvance(QLatin1Char('m')) * 10;
    int room = m_view->viewport()->width();
    for (const auto &[column, w] : fixed)
        room -= w;
    const int typeWidth = fixed[3].second;
    const bool showType = room - plannedMinimum - evidenceMinimum >= 0;
    m_view->setColumnHidden(CandidateTableModel::TypeColumn, !showType);
    if (!showType)
        room += typeWidth;
    for (const auto &[column, w] : fixed)
        m_view->setColumnWidth(column, w);
    const int planned = std::clamp(room - evidenceMinimum, plannedMinimum, plannedWanted);
    m_view->setColumnWidth(CandidateTableModel::ActionColumn, planned);
    m_view->setColumnWidth(CandidateTableModel::EvidenceColumn,
                           std::max(room - planned, evidenceMinimum));
}

void CandidatesPanel::setStaleNote(const QString &text)
{
    m_stale->setText(text);
    m_stale->setVisible(!text.isEmpty());
    if (text.isEmpty())
        m_stale->clear();
    fitColumns();
}

QString CandidatesPanel::staleNote() const
{
    return m_stale->isVisible() ? m_stale->text() : QString();
}

void CandidatesPanel::updateShown()
{
    QString text = QStringLiteral("%1 of %2 shown")
                       .arg(countText(m_proxy->rowCount()), countText(m_model->rowCount()));
    // Beyond run.scheduledListed a run counts healthy candidates without listing them: say so,
    // or the counts above the table and its rows would disagree without a reason. Short on the
    // filter row (it shares a 1024-pixel window); the why is in the tooltip.
    if (m_unlisted > 0)
        text += QStringLiteral(" · +%1 not listed").arg(countText(m_unlisted));
    m_shown->setText(text);
    m_shown->setToolTip(
        m_unlisted > 0
            ? QStringLiteral("%1 more candidates were found healthy (SCHEDULED): counted in the "
                             "Scheduled total, not listed here. A run lists up to "
                             "run.scheduledListed of them per domain; every ABSENT and UNKNOWN "
                             "candidate is always listed.")
                  .arg(countText(m_unlisted))
            : QString());
}

} // namespace reclaim::ui
