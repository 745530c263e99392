// The listening half every test relay shares: a QTcpServer on loopback, on a thread of its own
// (the test thread is blocked in the call the relay misbehaves for), handing each connection it
// accepts to `accept`, which parents what it makes to the server.
#pragma once

#include <QThread>
#include <functional>

class QObject;
class QTcpSocket;

namespace reclaim::test {

// Starts `thread` and listens there; the port, 0 when it could not listen. The server goes with
// the thread: quit and wait it to stop listening.
int listenOnThread(QThread &thread,
                   std::function<void(QTcpSocket *client, QObject *server)> accept);

} // namespace reclaim::test
