// Filters the candidate table by text, verdict and domain, and sorts it worst first (UNKNOWN,
// ABSENT, SCHEDULED; oldest first within a verdict) unless the operator picks another column.
#pragma once

#include "domain/verdict.h"

#include <QSortFilterProxyModel>

namespace reclaim::ui {

class CandidateTableModel;

class CandidateFilterProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit CandidateFilterProxy(QObject *parent = nullptr);

    void setText(const QString &text);
    void setVerdictShown(Verdict v, bool shown);
    bool verdictShown(Verdict v) const;
    void setDomain(const QString &domain); // empty: every domain
    QString domain() const { return m_domain; }

    // Filters and sorts by reading the model's rows directly when it is a CandidateTableModel.
    void setSourceModel(QAbstractItemModel *model) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    const CandidateTableModel *m_rows = nullptr; // the source model, when it is the candidates
    QString m_text;                              // lower-cased
    unsigned m_verdicts = 0b111;
    QString m_domain;
};

} // namespace reclaim::ui
