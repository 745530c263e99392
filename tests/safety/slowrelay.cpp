#include "slowrelay.h"

#include "relaylistener.h"

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTimer>
#include <algorithm>
#include <deque>

namespace reclaim::test {

namespace {

// One client's connection and its upstream twin, living on the relay's thread.
class Pair final : public QObject
{
public:
    Pair(QTcpSocket *client, const QString &host, int port, std::shared_ptr<SlowRelay::State> state,
         QObject *parent)
        : QObject(parent), m_client(client), m_upstream(new QTcpSocket(this)),
          m_state(std::move(state))
    {
        client->setParent(this);
        m_clock.start();
        m_release.setSingleShot(true);
        connect(&m_release, &QTimer::timeout, this, [this] { release(); });
        connect(m_upstream, &QTcpSocket::connected, this, [this] {
            m_upstream->write(m_pending);
            m_pending.clear();
        });
        connect(m_client, &QTcpSocket::readyRead, this, [this] {
            const QByteArray data = m_client->readAll();
            if (m_upstream->state() == QAbstractSocket::ConnectedState)
                m_upstream->write(data);
            else
                m_pending += data;
        });
        connect(m_upstream, &QTcpSocket::readyRead, this, [this] { hold(m_upstream->readAll()); });
        connect(m_client, &QTcpSocket::disconnected, this, [this] {
            m_upstream->disconnectFromHost();
            deleteLater();
        });
        connect(m_upstream, &QTcpSocket::disconnected, this, [this] {
            m_upstreamGone = true;
            if (m_held.empty())
                m_client->disconnectFromHost();
        });
        m_upstream->connectToHost(host, static_cast<quint16>(port));
    }

private:
    struct Held
    {
        qint64 dueMs;
        QByteArray bytes;
    };

    // Queues what the server sent, due when the mode says, never before what came earlier.
    void hold(const QByteArray &data)
    {
        const auto mode = static_cast<SlowRelay::Mode>(m_state->mode.load());
        const int delay = m_state->delayMs.load();
        const qint64 now = m_clock.elapsed();
        qint64 last = m_held.empty() ? now : std::max(now, m_held.back().dueMs);
        switch (mode) {
        case SlowRelay::Mode::Pass:
            m_held.push_back({last, data});
            break;
        case SlowRelay::Mode::Delay:
            m_held.push_back({std::max(last, now + delay), data});
            break;
        case SlowRelay::Mode::Drip:
            for (char c : data) {
                last += delay;
                m_held.push_back({last, QByteArray(1, c)});
            }
            break;
        }
        release();
    }

    void release()
    {
        const qint64 now = m_clock.elapsed();
        while (!m_held.empty() && m_held.front().dueMs <= now) {
            m_client->write(m_held.front().bytes);
            m_client->flush();
            m_held.pop_front();
        }
        if (!m_held.empty())
            m_release.start(static_cast<int>(m_held.front().dueMs - now));
        else if (m_upstreamGone)
            m_client->disconnectFromHost();
    }

    QTcpSocket *m_client;
    QTcpSocket *m_upstream;
    std::shared_ptr<SlowRelay::State> m_state;
    QByteArray m_pending;
    std::deque<Held> m_held;
    QTimer m_release;
    QElapsedTimer m_clock;
    bool m_upstreamGone = false;
};

} // namespace

SlowRelay::SlowRelay(const QString &host, int port)
{
    m_port = listenOnThread(m_thread,
                            [host, port, state = m_state](QTcpSocket *client, QObject *server) {
                                new Pair(client, host, port, state, server);
                            });
}

SlowRelay::~SlowRelay()
{
    m_thread.quit();
    m_thread.wait();
}

void SlowRelay::set(Mode mode, int delayMs)
{
    m_state->delayMs.store(delayMs);
    m_state->mode.store(static_cast<int>(mode));
}

} // namespace reclaim::test
