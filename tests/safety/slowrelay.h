// A TCP relay in front of a real server that passes what the client sends at once and holds
// back what the server answers (#31 item 1): each chunk `delayMs` late, or one byte every
// `delayMs`, the way a server on a sick network or a half-dead proxy answers. The mode can change
// while connections are open; it applies to bytes the server sends from then on. It runs on a
// thread of its own: the test thread is blocked in the call it times.
#pragma once

#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

namespace reclaim::test {

class SlowRelay final
{
public:
    enum class Mode
    {
        Pass,  // every byte at once
        Delay, // every chunk the server sends, whole, delayMs after it came
        Drip,  // one byte every delayMs
    };

    SlowRelay(const QString &host, int port);
    ~SlowRelay();
    SlowRelay(const SlowRelay &) = delete;
    SlowRelay &operator=(const SlowRelay &) = delete;

    int port() const { return m_port; } // 0: it could not listen
    void set(Mode mode, int delayMs = 0);

    struct State
    {
        std::atomic<int> mode{0};
        std::atomic<int> delayMs{0};
    };

private:
    std::shared_ptr<State> m_state = std::make_shared<State>();
    QThread m_thread;
    int m_port = 0;
};

} // namespace reclaim::test
