#include "lockpanel.h"

#include "config/connectionurl.h"
#include "domain/locktoken.h"
#include "elidedlabel.h"
#include "verdictstyle.h"

#include <QCoreApplication>
#include <QDateTime>
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

// "03:00:00 (12 min ago)" within a day, the full date and time beyond; the token's text as it
// is when it is not a timestamp.
QString sinceText(const QString &since)
{
    QDateTime t = QDateTime::fromString(since, Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(since, Qt::ISODate);
    if (!t.isValid())
        return since;
    const qint64 ago = t.secsTo(QDateTime::currentDateTimeUtc());
    const QDateTime local = t.toLocalTime();
    if (ago < 0 || ago >= 86400)
        return local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    const QString agoText =
        ago < 60     ? QStringLiteral("%1 s ago").arg(ago)
        : ago < 3600 ? QStringLiteral("%1 min ago").arg(ago / 60)
                     : QStringLiteral("%1 h %2 min ago").arg(ago / 3600).arg((ago % 3600) / 60);
    return QStringLiteral("%1 (%2)").arg(local.toString(QStringLiteral("HH:mm:ss")), agoText);
}

} // namespace

LockPanel::LockPanel(QWidget *parent)
    : QGroupBox(QStringLiteral("Recovery lock"), parent), m_state(new QLabel(this)),
      m_holder(new ElidedLabel(this)), m_process(new ElidedLabel(this)),
      m_since(new ElidedLabel(this)), m_ttl(new ElidedLabel(this)),
      m_generation(new ElidedLabel(this)), m_checked(new ElidedLabel(this))
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(8, 4, 8, 4);
    form->setVerticalSpacing(1);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->addRow(m_state); // the headline, across the panel
    form->addRow(QStringLiteral("Holder:"), m_holder);
    form->addRow(QStringLiteral("Process:"), m_process);
    form->addRow(QStringLiteral("Since:"), m_since);
    form->addRow(QStringLiteral("TTL:"), m_ttl);
    form->addRow(QStringLiteral("Generation:"), m_generation);
    form->addRow(QStringLiteral("Checked:"), m_checked);
    m_state->setTextFormat(Qt::RichText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (ElidedLabel *l : {m_holder, m_process, m_since, m_ttl, m_generation, m_checked})
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_generation->setExtraToolTip(
        QStringLiteral("Fencing: every run takes the next generation, and only the newest run "
                       "may write."));
    // Never squeezed below its lines: the splitter takes the room from the chart instead.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &LockPanel::tick);
    m_timer.start();
    tick();
}

void LockPanel::setStatus(const LockStatus &status)
{
    m_status = status;
    m_have = true;
    m_peekedAt.start();
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
    m_state->setText(QStringLiteral("<b>Not connected</b>"));
    m_state->setToolTip(why);
    setHolder(QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"));
    for (ElidedLabel *l : {m_ttl, m_generation})
        l->setFullText(QStringLiteral("-"));
    m_checked->setFullText(why);
}

QString LockPanel::stateText() const
{
    return m_state->text();
}

QString LockPanel::checkedText() const
{
    return m_checked->fullText();
}

QStringList LockPanel::holderLines() const
{
    return {m_holder->fullText(), m_process->fullText(), m_since->fullText()};
}

qint64 LockPanel::remainingTtlMs() const
{
    if (!m_have || m_status.ttlMs < 0)
        return m_status.ttlMs;
    return std::max<qint64>(0, m_status.ttlMs - m_peekedAt.elapsed());
}

void LockPanel::setHolder(const QString &host, const QString &process, const QString &since)
{
    m_holder->setFullText(host);
    m_process->setFullText(process);
    m_since->setFullText(since);
}

void LockPanel::tick()
{
    if (!m_have) {
        if (m_state->text().isEmpty()) {
            m_state->setText(QStringLiteral("not checked yet"));
            setHolder(QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"));
        }
        return;
    }
    const QString red = verdictColor(Verdict::Absent).name();
    const QString green = verdictColor(Verdict::Scheduled).name();
    const QString blue = QStringLiteral("#1565c0");
    const QString ago = QStringLiteral("%1 s ago").arg(m_peekedAt.elapsed() / 1000);
    // Peeks queue behind the console's own run, so what was read is from before it.
    m_checked->setExtraToolTip(m_runInFlight
                                   ? QStringLiteral("Peeks wait behind the console's own run on "
                                                    "the worker; this was read before it started.")
                                   : QString());
    m_checked->setFullText(m_runInFlight
                               ? QStringLiteral("%1, before the run").arg(ago)
                               : QStringLiteral("%1 (%2 ms)").arg(ago).arg(m_status.latencyMs));
    m_state->setToolTip({});
    if (!m_status.reachable) {
        const QString error = redactSecrets(m_status.error);
        m_state->setText(
            QStringLiteral("<b style='color:%1'>\u2715 Redis unreachable</b>").arg(red));
        m_state->setToolTip(error);
        setHolder(QStringLiteral("unknown"), QStringLiteral("unknown"), QStringLiteral("unknown"));
        m_ttl->setFullText(QStringLiteral("unknown"));
        m_generation->setFullText(QStringLiteral("unknown"));
        m_checked->setFullText(QStringLiteral("%1: %2").arg(ago, error));
        return;
    }
    m_generation->setFullText(QString::number(m_status.generation));
    const LockHolder holder = parseLockToken(m_status.holder);
    if (m_runInFlight && (m_status.holder.isEmpty() || m_mine)) {
        // The lock was free (or ours) when last read and this console's run is taking it now.
        m_state->setText(
            QStringLiteral("<b style='color:%1'>\u25d4 Acquiring\u2026</b> (this console's run)")
                .arg(blue));
        setHolder(QStringLiteral("this console"),
                  QStringLiteral("pid %1").arg(QCoreApplication::applicationPid()),
                  QStringLiteral("now"));
        m_ttl->setFullText(QStringLiteral("set as the run takes it"));
        return;
    }
    if (m_status.holder.isEmpty()) {
        m_state->setText(
            QStringLiteral("<b style='color:%1'>\u25cb Free</b> &mdash; no run in progress")
                .arg(green));
        setHolder(QStringLiteral("nobody"), QStringLiteral("-"), QStringLiteral("-"));
        m_ttl->setFullText(QStringLiteral("-"));
        return;
    }
    if (m_mine)
        m_state->setText(QStringLiteral("<b>\u25cf Held by this console</b>"));
    else
        m_state->setText(QStringLiteral("<b style='color:%1'>\u25cf Held by another runner</b>")
                             .arg(verdictColor(Verdict::Unknown).name()));
    if (holder.parsed)
        setHolder(holder.host, QStringLiteral("pid %1").arg(holder.pid), sinceText(holder.since));
    else
        setHolder(m_status.holder, QStringLiteral("(token not in Reclaim's form)"),
                  QStringLiteral("-"));
    const qint64 left = remainingTtlMs();
    if (m_status.ttlMs == -1)
        m_ttl->setFullText(QStringLiteral("no expiry set"));
    else if (left > 0)
        m_ttl->setFullText(QStringLiteral("expires in %1").arg(duration(left)));
    else
        m_ttl->setFullText(QStringLiteral("expired (confirming at the next check)"));
}

} // namespace reclaim::ui
