// The run strip: "Run now", the auto-refresh interval, a progress indicator while a run is in
// flight, and when the last run happened and how long it took.
#pragma once

#include "domain/runreport.h"

#include <QWidget>

class QActionGroup;
class QComboBox;
class QLabel;
class QProgressBar;
class QToolButton;
class QAction;

namespace reclaim::ui {

class ElidedLabel;

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
    // The interval choices as checkable actions (one checked), for the Run menu: choosing one
    // there is the same as choosing it in the box.
    QActionGroup *intervalActions() const { return m_intervalActions; }

signals:
    void autoRefreshChanged(int seconds);

private:
    void addChoice(int seconds);
    void syncActions();

    QComboBox *m_interval;
    QActionGroup *m_intervalActions;
    QProgressBar *m_progress;
    ElidedLabel *m_last;
    QLabel *m_next;
};

} // namespace reclaim::ui
