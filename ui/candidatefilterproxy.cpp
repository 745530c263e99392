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

bool CandidateFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto verdict = static_cast<Verdict>(idx.data(CandidateTableModel::VerdictRole).toInt());
    if (!verdictShown(verdict))
        return false;
    if (!m_domain.isEmpty() && idx.data(CandidateTableModel::DomainRole).toString() != m_domain)
        return false;
    if (m_text.isEmpty())
        return true;
    const QString haystack = idx.data(CandidateTableModel::SearchTextRole).toString();
    // Every word must appear somewhere: "video absent" narrows rather than widens.
    for (const QStringView word : QStringView(m_text).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (!haystack.contains(word))
            return false;
    return true;
}

bool CandidateFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant l = left.data(CandidateTableModel::SortRole);
    const QVariant r = right.data(CandidateTableModel::SortRole);
    const auto order = QVariant::compare(l, r);
    if (order != QPartialOrdering::Equivalent)
        return order == QPartialOrdering::Less;
    // Ties: the oldest first, then by key, so the order is total and stable across refreshes.
    const qint64 la = left.data(CandidateTableModel::AgeSecondsRole).toLongLong();
    const qint64 ra = right.data(CandidateTableModel::AgeSecondsRole).toLongLong();
    if (la != ra)
        return (la > ra) == (sortOrder() == Qt::AscendingOrder);
    return (left.data(CandidateTableModel::KeyRole).toString() <
            right.data(CandidateTableModel::KeyRole).toString()) ==
           (sortOrder() == Qt::AscendingOrder);
}

} // namespace reclaim::ui
