// Filters the candidate table by text, verdict and domain. It does not sort: the model keeps its
// rows in order (worst first unless the operator picks another column), so that a report's rows
// can be put in order off the UI thread; a view's sort is handed to the model.
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

    // Filters by reading the model's rows directly when it is a CandidateTableModel.
    void setSourceModel(QAbstractItemModel *model) override;
    // Sorts the CandidateTableModel (any other source: as QSortFilterProxyModel does).
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    CandidateTableModel *m_rows = nullptr; // the source model, when it is the candidates
    QString m_text;                        // lower-cased
    unsigned m_verdicts = 0b111;
    QString m_domain;
};

} // namespace reclaim::ui
