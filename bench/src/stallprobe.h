// Watches the UI thread for the console measurements: a 5 ms timer whose every tick's lateness
// is UI-thread time spent elsewhere (the longest one is the longest stall).
#pragma once

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

namespace reclaim::bench {

// Watches the UI thread: a 5 ms timer; each tick's lateness is UI-thread time spent elsewhere.
class StallProbe final : public QObject
{
public:
    explicit StallProbe(QObject *parent = nullptr) : QObject(parent)
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(5);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = m_clock.nsecsElapsed() / 1e6;
            const double late = now - m_last - 5.0;
            m_last = now;
            ++m_ticks;
            if (late > 0)
                m_lateSum += late;
            if (late > m_maxLate) {
                m_maxLate = late;
                m_maxAt = now;
            }
            if (late > 16)
                ++m_over16;
            if (late > 50)
                ++m_over50;
        });
    }

    void start()
    {
        m_clock.start();
        m_last = 0;
        m_lateSum = 0;
        m_maxLate = 0;
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    double now() const { return m_clock.nsecsElapsed() / 1e6; }

    QJsonObject toJson() const
    {
        return {{QStringLiteral("maxStallMs"), m_maxLate},
                {QStringLiteral("maxStallAtMs"), m_maxAt},
                {QStringLiteral("ticks"), m_ticks},
                {QStringLiteral("stallsOver16Ms"), m_over16},
                {QStringLiteral("stallsOver50Ms"), m_over50},
                {QStringLiteral("busyMs"), m_lateSum}};
    }
    double maxStall() const { return m_maxLate; }
    // The UI thread's time away from the event loop since start(), as the ticks saw it.
    double busyMs() const { return m_lateSum; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0;
    double m_maxLate = 0;
    double m_maxAt = 0;
    double m_lateSum = 0;
    int m_ticks = 0;
    int m_over16 = 0;
    int m_over50 = 0;
};

} // namespace reclaim::bench
