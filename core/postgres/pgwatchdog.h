// A client-side deadline for one PostgreSQL call: a thread that shuts the connection's socket
// down when an armed call has not come back in time. libpq has no read timeout, and a server
// stopped with SIGSTOP still has its kernel ACK every packet, so keepalives never fire; shutting
// the socket makes the blocked read return and the call fail instead of hanging the run.
#pragma once

#include <QtGlobal>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace reclaim {

class PgWatchdog final
{
public:
    PgWatchdog();
    ~PgWatchdog();
    Q_DISABLE_COPY_MOVE(PgWatchdog)

    // From now on, shuts `socketFd` down once `limit` has passed, unless disarmed first.
    void arm(int socketFd, std::chrono::milliseconds limit);
    // Stops watching; true if the deadline passed and the socket was shut down. Once it returns,
    // the socket is no longer touched (so it may be closed).
    bool disarm();

private:
    void watch();

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::thread m_thread;
    int m_fd = -1;
    std::chrono::steady_clock::time_point m_deadline;
    bool m_armed = false;
    bool m_fired = false;
    bool m_stopping = false;
};

} // namespace reclaim
