// The selected candidate in full: verdict, per-queue evidence, planned action with the payload a
// requeue would enqueue, the job's payload and the database row.
#pragma once

#include "candidatetablemodel.h"

#include <QWidget>

class QLabel;
class QTextBrowser;

namespace reclaim::ui {

class DetailsPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    // Shows `row` (null: the placeholder). Re-showing the same key keeps the scroll position.
    void showRow(const CandidateTableModel::Row *row);
    QString shownKey() const { return m_key; }
    QString html() const;

private:
    QLabel *m_icon;
    QLabel *m_title;
    QLabel *m_summary;
    QTextBrowser *m_body;
    QString m_key;
};

} // namespace reclaim::ui
