#include "runcontrols.h"

#include "elidedlabel.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace reclaim::ui {

namespace {

QString intervalText(int seconds)
{
    if (seconds == 0)
        return QStringLiteral("off");
    if (seconds % 60 == 0)
        return QStringLiteral("every %1 min").arg(seconds / 60);
    return QStringLiteral("every %1 s").arg(seconds);
}

} // namespace

RunControls::RunControls(QAction *runNow, QWidget *parent)
    : QWidget(parent), m_interval(new QComboBox(this)), m_intervalActions(new QActionGroup(this)),
      m_progress(new QProgressBar(this)), m_last(new ElidedLabel(this)), m_next(new QLabel(this))
{
    auto *button = new QToolButton(this);
    button->setDefaultAction(runNow);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_intervalActions->setExclusive(true);
    for (const int s : {0, 60, 120, 300, 600, 900, 1800})
        addChoice(s);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_progress->hide();
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(button);
    auto *label = new QLabel(QStringLiteral("Auto-refresh:"), this);
    layout->addWidget(label);
    layout->addWidget(m_interval);
    layout->addWidget(m_progress);
    layout->addSpacing(12);
    layout->addWidget(m_last, 1);
    layout->addWidget(m_next);
    m_last->setFullText(QStringLiteral("No run yet"));
    connect(m_interval, &QComboBox::activated, this, [this](int index) {
        syncActions();
        emit autoRefreshChanged(m_interval->itemData(index).toInt());
    });
    syncActions();
}

void RunControls::addChoice(int seconds)
{
    m_interval->addItem(intervalText(seconds), seconds);
    auto *action =
        new QAction(seconds == 0 ? QStringLiteral("Auto-refresh off")
                                 : QStringLiteral("Auto-refresh %1").arg(intervalText(seconds)),
                    m_intervalActions);
    action->setCheckable(true);
    action->setData(seconds);
    connect(action, &QAction::triggered, this, [this, seconds] {
        setAutoRefreshSeconds(seconds);
        emit autoRefreshChanged(seconds);
    });
}

void RunControls::syncActions()
{
    const int seconds = m_interval->currentData().toInt();
    for (QAction *a : m_intervalActions->actions())
        a->setChecked(a->data().toInt() == seconds);
}

void RunControls::setAutoRefreshSeconds(int seconds)
{
    int index = m_interval->findData(seconds);
    if (index < 0) {
        addChoice(seconds);
        index = m_interval->count() - 1;
    }
    m_interval->setCurrentIndex(index);
    syncActions();
}

int RunControls::autoRefreshSeconds() const
{
    return m_interval->currentData().toInt();
}

void RunControls::setRunning(bool running)
{
    m_progress->setVisible(running);
    if (running) {
        m_progress->setRange(0, 0); // busy until the first phase reports
        m_progress->setFormat(QStringLiteral("starting\u2026"));
    }
}

void RunControls::setProgress(const QString &phase, int done, int total)
{
    m_progress->show();
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(std::min(done, std::max(1, total)));
    m_progress->setFormat(QStringLiteral("%1 %2/%3").arg(phase).arg(done).arg(total));
}

void RunControls::setLastRun(const RunReport &report)
{
    const qint64 ms = report.startedAt.msecsTo(report.finishedAt);
    QString outcome = RunReport::outcomeName(report.outcome);
    if (report.dryRun)
        outcome += QStringLiteral(", dry run");
    const QString took = ms < 1000 ? QStringLiteral("%1 ms").arg(ms)
                                   : QStringLiteral("%1 s").arg(ms / 1000.0, 0, 'f', 1);
    m_last->setFullText(
        QStringLiteral("Last run %1 at %2, took %3 (%4)")
            .arg(report.runId, report.startedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                 took, outcome));
}

void RunControls::setNextRun(const QDateTime &at)
{
    m_next->setText(at.isValid()
                        ? QStringLiteral("next at %1").arg(at.toString(QStringLiteral("HH:mm:ss")))
                        : QString());
}

QString RunControls::lastRunText() const
{
    return m_last->fullText();
}

} // namespace reclaim::ui
