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
    setSortRole(CandidateTableModel::SortRole);
    setDynamicSortFilter(true);
    sort(CandidateTableModel::VerdictColumn, Qt::AscendingOrder);
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
    m_rows = qobject_cast<const CandidateTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

bool CandidateFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    // A reset filters every row and a sort compares each row about log2(n) times: over 20,000
    // rows that must not build QVariants (or age strings) per call, so rows are read directly.
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

bool CandidateFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const CandidateTableModel::Row *l = m_rows ? m_rows->rowAt(left.row()) : nullptr;
    const CandidateTableModel::Row *r = m_rows ? m_rows->rowAt(right.row()) : nullptr;
    if (!l || !r)
        return QSortFilterProxyModel::lessThan(left, right);
    if (const int order = m_rows->compareForSort(*l, *r, left.column()); order != 0)
        return order < 0;
    // Ties: the oldest first, then by key, so the order is total and stable across refreshes.
    const qint64 la = m_rows->ageSeconds(*l);
    const qint64 ra = m_rows->ageSeconds(*r);
    if (la != ra)
        return (la > ra) == (sortOrder() == Qt::AscendingOrder);
    return (l->key < r->key) == (sortOrder() == Qt::AscendingOrder);
}

} // namespace reclaim::ui
