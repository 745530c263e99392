// A TCP relay in front of the sandbox's PostgreSQL that can lose the answer to a COMMIT (#31 item
// 2): armed, it passes the next COMMIT a client sends on to the server — which commits — and
// drops everything the server answers on that connection, as a network that fails at the worst
// moment would. "Dark" also stops relaying any connection opened afterwards, so the client
// cannot read what happened either. It runs on a thread of its own: the test thread is blocked
// in the run it watches.
#pragma once

#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

namespace reclaim::test {

class CommitProxy final
{
public:
    enum class Arm
    {
        SwallowCommitAnswer,   // the next COMMIT's answer is lost; new connections still work
        SwallowCommitThenDark, // ... and no connection opened after it is answered any more
    };

    CommitProxy(const QString &host, int port);
    ~CommitProxy();
    CommitProxy(const CommitProxy &) = delete;
    CommitProxy &operator=(const CommitProxy &) = delete;

    int port() const { return m_port; } // 0: it could not listen
    void arm(Arm how);
    bool swallowed() const { return m_state->swallowed.load(); }

    struct State
    {
        std::atomic<int> armed{-1}; // -1, or an Arm value
        std::atomic<bool> swallowed{false};
        std::atomic<bool> dark{false};
    };

private:
    std::shared_ptr<State> m_state = std::make_shared<State>();
    QThread m_thread;
    int m_port = 0;
};

} // namespace reclaim::test
