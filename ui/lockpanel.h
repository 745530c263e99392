// The recovery lock, always in view: who holds it (host, process and since when, decoded from
// the token), its TTL counting down between peeks, the fencing generation, whether this console
// holds it or its own run is taking it, or why Redis could not be asked. One short line per
// fact, so nothing wraps into the next line in a narrow column.
#pragma once

#include "service/recoveryworker.h"

#include <QElapsedTimer>
#include <QGroupBox>
#include <QTimer>

class QLabel;

namespace reclaim::ui {

class ElidedLabel;

class LockPanel final : public QGroupBox
{
    Q_OBJECT
public:
    explicit LockPanel(QWidget *parent = nullptr);

    void setStatus(const LockStatus &status);
    // While this console's run is in flight, peeks wait behind it on the worker: the panel says
    // the run is taking the lock rather than showing the status read before it as current.
    void setRunInFlight(bool inFlight);
    // Not connected (no configuration): nothing to peek.
    void setUnavailable(const QString &why);

    // The state line as shown, and the remaining TTL in ms (for tests; -2 none, -1 no expiry).
    QString stateText() const;
    // When the lock was last read (and, when Redis could not be asked, why).
    QString checkedText() const;
    // The holder lines as shown: host, process, since (for tests).
    QStringList holderLines() const;
    qint64 remainingTtlMs() const;
    bool heldByThisConsole() const { return m_mine; }
    const LockStatus &status() const { return m_status; }

private:
    void tick();
    void setHolder(const QString &host, const QString &process, const QString &since);

    QLabel *m_state;
    ElidedLabel *m_holder;
    ElidedLabel *m_process;
    ElidedLabel *m_since;
    ElidedLabel *m_ttl;
    ElidedLabel *m_generation;
    ElidedLabel *m_checked;
    QTimer m_timer;
    QElapsedTimer m_peekedAt;
    LockStatus m_status;
    bool m_have = false;
    bool m_mine = false;
    bool m_runInFlight = false;
};

} // namespace reclaim::ui
