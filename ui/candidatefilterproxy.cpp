#include "candidatefilterproxy.h"

#include "candidatetablemodel.h"

namespace reclaim::ui {

namespace {
unsigned bitOf(Verdict v)
{
    return 1u << static_cast<unsigned>(v);
}
} // namespace

CandidateFilterProxy::CandidateFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    // What the filter reads: a dataChanged that names other roles only (the age column's, as
    // the clock moves) does not make the proxy filter every row again.
    setFilterRole(CandidateTableModel::SearchTextRole);
    setDynamicSortFilter(true);
}

void CandidateFilterProxy::setText(const QString &text)
{
    const QString lowered = text.trimmed().toLower();
    if (lowered == m_text)
        return;
    m_text = lowered;
    invalidateFilter();
}

void CandidateFilterProxy::setVerdictShown(Verdict v, bool shown)
{
    const unsigned next = shown ? (m_verdicts | bitOf(v)) : (m_verdicts & ~bitOf(v));
    if (next == m_verdicts)
        return;
    m_verdicts = next;
    invalidateFilter();
}

bool CandidateFilterProxy::verdictShown(Verdict v) const
{
    return (m_verdicts & bitOf(v)) != 0;
}

void CandidateFilterProxy::setDomain(const QString &domain)
{
    if (domain == m_domain)
        return;
    m_domain = domain;
    invalidateFilter();
}

void CandidateFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    m_rows = qobject_cast<CandidateTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void CandidateFilterProxy::sort(int column, Qt::SortOrder order)
{
    if (m_rows)
        m_rows->sort(column, order);
    else
        QSortFilterProxyModel::sort(column, order);
}

bool CandidateFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    // A reset filters every row: over 200,000 rows that must not build QVariants per call, so
    // rows are read directly.
    const CandidateTableModel::Row *row = m_rows ? m_rows->rowAt(sourceRow) : nullptr;
    if (!row)
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    if (!verdictShown(row->verdict->verdict))
        return false;
    if (!m_domain.isEmpty() && row->verdict->candidate.domain != m_domain)
        return false;
    if (m_text.isEmpty())
        return true;
    // Every word must appear somewhere: "video absent" narrows rather than widens.
    for (const QStringView word : QStringView(m_text).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (!row->mentions(word))
            return false;
    return true;
}

} // namespace reclaim::ui
