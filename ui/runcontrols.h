// The run strip: "Run now", the auto-refresh interval, a progress indicator while a run is in
// flight, and when the last run happened and how long it took.
#pragma once

#include "domain/runreport.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QProgressBar;
class QToolButton;
class QAction;

namespace reclaim::ui {

class RunControls final : public QWidget
{
    Q_OBJECT
public:
    explicit RunControls(QAction *runNow, QWidget *parent = nullptr);

    void setAutoRefreshSeconds(int seconds); // adds the value to the choices if it is unusual
    int autoRefreshSeconds() const;
    void setRunning(bool running);
    void setProgress(const QString &phase, int done, int total);
    void setLastRun(const RunReport &report);
    void setNextRun(const QDateTime &at);
    QString lastRunText() const;

signals:
    void autoRefreshChanged(int seconds);

private:
    QComboBox *m_interval;
    QProgressBar *m_progress;
    QLabel *m_last;
    QLabel *m_next;
};

} // namespace reclaim::ui
