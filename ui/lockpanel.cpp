#include "lockpanel.h"

#include "config/connectionurl.h"
#include "domain/locktoken.h"
#include "verdictstyle.h"

#include <QCoreApplication>
#include <QFormLayout>
#include <QHostInfo>
#include <QLabel>

namespace reclaim::ui {

namespace {

QString duration(qint64 ms)
{
    const qint64 s = (ms + 999) / 1000;
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

LockPanel::LockPanel(QWidget *parent)
    : QGroupBox(QStringLiteral("Recovery lock"), parent), m_state(new QLabel(this)),
      m_holder(new QLabel(this)), m_ttl(new QLabel(this)), m_generation(new QLabel(this)),
      m_checked(new QLabel(this))
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(8, 4, 8, 4);
    form->setVerticalSpacing(2);
    form->addRow(QStringLiteral("State:"), m_state);
    form->addRow(QStringLiteral("Holder:"), m_holder);
    form->addRow(QStringLiteral("TTL:"), m_ttl);
    form->addRow(QStringLiteral("Generation:"), m_generation);
    form->addRow(QStringLiteral("Checked:"), m_checked);
    for (QLabel *l : {m_state, m_holder, m_ttl, m_generation, m_checked}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &LockPanel::tick);
    m_timer.start();
    tick();
}

void LockPanel::setStatus(const LockStatus &status)
{
    m_status = status;
    m_have = true;
    m_since.start();
    const LockHolder holder = parseLockToken(status.holder);
    m_mine = holder.parsed && holder.host == QHostInfo::localHostName() &&
             holder.pid == QCoreApplication::applicationPid();
    tick();
}

void LockPanel::setRunInFlight(bool inFlight)
{
    m_runInFlight = inFlight;
    tick();
}

void LockPanel::setUnavailable(const QString &why)
{
    m_have = false;
    m_state->setText(QStringLiteral("<b>Not connected</b>: %1").arg(why.toHtmlEscaped()));
    for (QLabel *l : {m_holder, m_ttl, m_generation, m_checked})
        l->setText(QStringLiteral("-"));
}

QString LockPanel::stateText() const
{
    return m_state->text();
}

qint64 LockPanel::remainingTtlMs() const
{
    if (!m_have || m_status.ttlMs < 0)
        return m_status.ttlMs;
    return std::max<qint64>(0, m_status.ttlMs - m_since.elapsed());
}

void LockPanel::tick()
{
    if (!m_have) {
        if (m_state->text().isEmpty())
            m_state->setText(QStringLiteral("not checked yet"));
        return;
    }
    const QString red = verdictColor(Verdict::Absent).name();
    const QString green = verdictColor(Verdict::Scheduled).name();
    m_checked->setText(QStringLiteral("%1 s ago, Redis answered in %2 ms")
                           .arg(m_since.elapsed() / 1000)
                           .arg(m_status.latencyMs));
    if (!m_status.reachable) {
        m_state->setText(QStringLiteral("<b style='color:%1'>\u2715 Redis unreachable:</b> %2")
                             .arg(red, redactSecrets(m_status.error).toHtmlEscaped()));
        m_holder->setText(QStringLiteral("unknown (could not ask)"));
        m_ttl->setText(QStringLiteral("unknown"));
        m_generation->setText(QStringLiteral("unknown"));
        return;
    }
    m_generation->setText(
        QStringLiteral("%1 (fencing: only the newest run may write)").arg(m_status.generation));
    const QString inFlight =
        m_runInFlight ? QStringLiteral(" &middot; a console run is in flight") : QString();
    if (m_status.holder.isEmpty()) {
        m_state->setText(
            QStringLiteral("<b style='color:%1'>\u25cb Free</b> (no run in progress)%2")
                .arg(green, inFlight));
        m_holder->setText(QStringLiteral("nobody"));
        m_ttl->setText(QStringLiteral("-"));
        return;
    }
    const LockHolder holder = parseLockToken(m_status.holder);
    m_state->setText(m_mine
                         ? QStringLiteral("<b>\u25cf Held by this console</b>%1").arg(inFlight)
                         : QStringLiteral("<b style='color:%1'>\u25cf Held by another runner</b>%2")
                               .arg(verdictColor(Verdict::Unknown).name(), inFlight));
    m_holder->setText(holder.parsed ? QStringLiteral("%1, pid %2, since %3")
                                          .arg(holder.host)
                                          .arg(holder.pid)
                                          .arg(holder.since)
                                    : m_status.holder.toHtmlEscaped());
    const qint64 left = remainingTtlMs();
    if (m_status.ttlMs == -1)
        m_ttl->setText(QStringLiteral("no expiry set"));
    else if (left > 0)
        m_ttl->setText(QStringLiteral("expires in %1").arg(duration(left)));
    else
        m_ttl->setText(QStringLiteral("expired (confirming at the next check)"));
}

} // namespace reclaim::ui
