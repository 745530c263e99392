#include "relaylistener.h"

#include <QHostAddress>
#include <QMetaObject>
#include <QTcpServer>
#include <QTcpSocket>

namespace reclaim::test {

int listenOnThread(QThread &thread, std::function<void(QTcpSocket *client, QObject *server)> accept)
{
    thread.start();
    auto *server = new QTcpServer;
    server->moveToThread(&thread);
    QObject::connect(&thread, &QThread::finished, server, &QObject::deleteLater);
    int port = 0;
    QMetaObject::invokeMethod(
        server,
        [server, &port, accept = std::move(accept)] {
            QObject::connect(server, &QTcpServer::newConnection, server, [server, accept] {
                while (QTcpSocket *client = server->nextPendingConnection())
                    accept(client, server);
            });
            if (server->listen(QHostAddress::LocalHost, 0))
                port = server->serverPort();
        },
        Qt::BlockingQueuedConnection);
    return port;
}

} // namespace reclaim::test
