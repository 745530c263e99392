// A scripted Redis node on loopback for client tests: it speaks RESP over a real TCP socket (so
// the client under test runs its real connection code) and answers each command with whatever
// the test's handler returns. It can also close a connection instead of answering, as a node
// that dies between running a write and replying does.
#pragma once

#include "config/hostport.h"

#include <QByteArray>
#include <QList>
#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace reclaim::test {

// RESP replies, encoded.
namespace resp {
QByteArray ok();
QByteArray status(const QByteArray &text);
QByteArray error(const QByteArray &text);
QByteArray bulk(const QByteArray &bytes);
QByteArray nil();
QByteArray integer(long long n);
QByteArray array(const QList<QByteArray> &encodedElements);
} // namespace resp

class FakeRedisNode final
{
public:
    // What the node answers: encoded RESP bytes, or `closeConnection()` to close the
    // connection without a reply. `connection` tells the node's connections apart (ASKING holds
    // for the next command of one connection only).
    using Handler = std::function<QByteArray(int connection, const QList<QByteArray> &argv)>;
    static QByteArray closeConnection();

    explicit FakeRedisNode(Handler handler);
    ~FakeRedisNode();
    FakeRedisNode(const FakeRedisNode &) = delete;
    FakeRedisNode &operator=(const FakeRedisNode &) = delete;

    bool isListening() const { return m_listenFd >= 0; }
    HostPort address() const { return {QStringLiteral("127.0.0.1"), m_port}; }

    // Every command received, in order, whatever the answer.
    QList<QList<QByteArray>> received() const;
    // How many commands named `name` (case-insensitive) were received.
    int count(const QByteArray &name) const;
    void clearReceived();

private:
    void serve();

    Handler m_handler;
    int m_listenFd = -1;
    int m_wakeFds[2] = {-1, -1};
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    QList<QList<QByteArray>> m_received;
    std::thread m_thread;
};

} // namespace reclaim::test
