#include "postgres/pgwatchdog.h"

#include <sys/socket.h>
#include <utility>

namespace reclaim {

PgWatchdog::PgWatchdog() : m_thread([this] { watch(); }) {}

PgWatchdog::~PgWatchdog()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void PgWatchdog::arm(int socketFd, std::chrono::milliseconds limit)
{
    {
        std::lock_guard lock(m_mutex);
        m_fd = socketFd;
        m_deadline = std::chrono::steady_clock::now() + limit;
        m_armed = socketFd >= 0;
        m_fired = false;
    }
    m_changed.notify_all();
}

bool PgWatchdog::disarm()
{
    std::lock_guard lock(m_mutex);
    m_armed = false;
    m_fd = -1;
    return std::exchange(m_fired, false);
}

void PgWatchdog::watch()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (!m_armed) {
            m_changed.wait(lock);
            continue;
        }
        const auto deadline = m_deadline;
        if (m_changed.wait_until(lock, deadline) == std::cv_status::timeout && m_armed &&
            m_deadline == deadline) {
            // Under the mutex: disarm() cannot return, and the socket cannot be closed, meanwhile.
            ::shutdown(m_fd, SHUT_RDWR);
            m_fired = true;
            m_armed = false;
        }
    }
}

} // namespace reclaim
