// The recovery lock, always in view: who holds it (decoded from the token), its TTL counting down
// between peeks, the fencing generation, whether this console holds it, or why Redis could not
// be asked.
#pragma once

#include "service/recoveryworker.h"

#include <QElapsedTimer>
#include <QGroupBox>
#include <QTimer>

class QLabel;

namespace reclaim::ui {

class LockPanel final : public QGroupBox
{
    Q_OBJECT
public:
    explicit LockPanel(QWidget *parent = nullptr);

    void setStatus(const LockStatus &status);
    void setRunInFlight(bool inFlight);
    // Not connected (no configuration): nothing to peek.
    void setUnavailable(const QString &why);

    // The state line as shown, and the remaining TTL in ms (for tests; -2 none, -1 no expiry).
    QString stateText() const;
    qint64 remainingTtlMs() const;
    bool heldByThisConsole() const { return m_mine; }
    const LockStatus &status() const { return m_status; }

private:
    void tick();

    QLabel *m_state;
    QLabel *m_holder;
    QLabel *m_ttl;
    QLabel *m_generation;
    QLabel *m_checked;
    QTimer m_timer;
    QElapsedTimer m_since;
    LockStatus m_status;
    bool m_have = false;
    bool m_mine = false;
    bool m_runInFlight = false;
};

} // namespace reclaim::ui
