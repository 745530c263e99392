#include "commitproxy.h"

#include "relaylistener.h"

#include <QPointer>
#include <QTcpSocket>

namespace reclaim::test {

namespace {

// A simple-protocol COMMIT as libpq sends it: 'Q', its length (4 + 7), "COMMIT\0".
const QByteArray kCommit = QByteArray("Q\x00\x00\x00\x0b"
                                      "COMMIT",
                                      11) +
                           QByteArray(1, '\0');

// One client's connection and its upstream twin, living on the proxy's thread.
class Pair final : public QObject
{
public:
    Pair(QTcpSocket *client, const QString &host, int port,
         std::shared_ptr<CommitProxy::State> state, QObject *parent)
        : QObject(parent), m_client(client), m_upstream(new QTcpSocket(this)),
          m_state(std::move(state))
    {
        client->setParent(this);
        if (m_state->dark.load()) {
            m_silent = true; // accepted, never answered: the client's connect times out
            return;
        }
        connect(m_upstream, &QTcpSocket::connected, this, [this] {
            m_upstream->write(m_pending);
            m_pending.clear();
        });
        connect(m_client, &QTcpSocket::readyRead, this, [this] { fromClient(); });
        connect(m_upstream, &QTcpSocket::readyRead, this, [this] {
            const QByteArray data = m_upstream->readAll();
            if (!m_swallowing)
                m_client->write(data);
        });
        connect(m_client, &QTcpSocket::disconnected, this, [this] {
            m_upstream->disconnectFromHost();
            deleteLater();
        });
        connect(m_upstream, &QTcpSocket::disconnected, this, [this] {
            if (!m_swallowing)
                m_client->disconnectFromHost();
        });
        m_upstream->connectToHost(host, static_cast<quint16>(port));
    }

private:
    void fromClient()
    {
        const QByteArray data = m_client->readAll();
        if (m_silent)
            return;
        int armed = m_state->armed.load();
        const int how = armed;
        if (armed >= 0 && !m_swallowing && data.contains(kCommit) &&
            m_state->armed.compare_exchange_strong(armed, -1)) {
            m_swallowing = true; // the server gets the COMMIT; the client hears nothing back
            m_state->swallowed.store(true);
            if (how == static_cast<int>(CommitProxy::Arm::SwallowCommitThenDark))
                m_state->dark.store(true);
        }
        if (m_upstream->state() == QAbstractSocket::ConnectedState)
            m_upstream->write(data);
        else
            m_pending += data;
    }

    QTcpSocket *m_client;
    QTcpSocket *m_upstream;
    std::shared_ptr<CommitProxy::State> m_state;
    QByteArray m_pending;
    bool m_swallowing = false;
    bool m_silent = false;
};

} // namespace

CommitProxy::CommitProxy(const QString &host, int port)
{
    m_port = listenOnThread(m_thread,
                            [host, port, state = m_state](QTcpSocket *client, QObject *server) {
                                new Pair(client, host, port, state, server);
                            });
}

CommitProxy::~CommitProxy()
{
    m_thread.quit();
    m_thread.wait();
}

void CommitProxy::arm(Arm how)
{
    m_state->armed.store(static_cast<int>(how));
}

} // namespace reclaim::test
