#include "fakeredisnode.h"

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <map>
#include <netinet/in.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace reclaim::test {

namespace resp {
QByteArray ok()
{
    return QByteArrayLiteral("+OK\r\n");
}
QByteArray status(const QByteArray &text)
{
    return '+' + text + "\r\n";
}
QByteArray error(const QByteArray &text)
{
    return '-' + text + "\r\n";
}
QByteArray bulk(const QByteArray &bytes)
{
    return '$' + QByteArray::number(bytes.size()) + "\r\n" + bytes + "\r\n";
}
QByteArray nil()
{
    return QByteArrayLiteral("$-1\r\n");
}
QByteArray integer(long long n)
{
    return ':' + QByteArray::number(n) + "\r\n";
}
QByteArray array(const QList<QByteArray> &encodedElements)
{
    QByteArray out = '*' + QByteArray::number(encodedElements.size()) + "\r\n";
    for (const QByteArray &e : encodedElements)
        out += e;
    return out;
}
} // namespace resp

namespace {

// One whole command off the front of `buffer` (a RESP array of bulk strings, as hiredis
// sends), or nothing while its bytes have not all arrived.
std::optional<QList<QByteArray>> takeCommand(QByteArray &buffer)
{
    qsizetype pos = 0;
    const auto line = [&]() -> std::optional<QByteArray> {
        const qsizetype end = buffer.indexOf("\r\n", pos);
        if (end < 0)
            return std::nullopt;
        QByteArray text = buffer.mid(pos, end - pos);
        pos = end + 2;
        return text;
    };
    const auto header = line();
    if (!header || !header->startsWith('*'))
        return std::nullopt;
    const int n = header->mid(1).toInt();
    QList<QByteArray> argv;
    for (int i = 0; i < n; ++i) {
        const auto size = line();
        if (!size || !size->startsWith('$'))
            return std::nullopt;
        const qsizetype len = size->mid(1).toLongLong();
        if (buffer.size() < pos + len + 2)
            return std::nullopt;
        argv << buffer.mid(pos, len);
        pos += len + 2;
    }
    buffer.remove(0, pos);
    return argv;
}

void writeAll(int fd, const QByteArray &bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += n;
    }
}

} // namespace

QByteArray FakeRedisNode::closeConnection()
{
    return QByteArrayLiteral("\0close");
}

FakeRedisNode::FakeRedisNode(Handler handler) : m_handler(std::move(handler))
{
    m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (m_listenFd < 0 || ::bind(m_listenFd, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
        ::listen(m_listenFd, 16) != 0 ||
        ::getsockname(m_listenFd, reinterpret_cast<sockaddr *>(&addr), &len) != 0 ||
        ::pipe2(m_wakeFds, O_CLOEXEC) != 0) {
        if (m_listenFd >= 0)
            ::close(m_listenFd);
        m_listenFd = -1;
        return;
    }
    m_port = ntohs(addr.sin_port);
    m_thread = std::thread([this] { serve(); });
}

FakeRedisNode::~FakeRedisNode()
{
    m_stop = true;
    if (m_wakeFds[1] >= 0)
        (void)::write(m_wakeFds[1], "x", 1);
    if (m_thread.joinable())
        m_thread.join();
    for (int fd : {m_listenFd, m_wakeFds[0], m_wakeFds[1]})
        if (fd >= 0)
            ::close(fd);
}

void FakeRedisNode::serve()
{
    struct Client
    {
        int fd;
        int id;
        QByteArray buffer;
    };
    std::vector<Client> clients;
    int nextId = 1;
    while (!m_stop) {
        std::vector<pollfd> fds{{m_wakeFds[0], POLLIN, 0}, {m_listenFd, POLLIN, 0}};
        for (const Client &c : clients)
            fds.push_back({c.fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR)
            break;
        if (m_stop)
            break;
        if ((fds.at(1).revents & POLLIN) != 0) {
            const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0)
                clients.push_back({fd, nextId++, {}});
        }
        std::vector<int> closed;
        for (size_t i = 2; i < fds.size(); ++i) {
            if (fds.at(i).revents == 0)
                continue;
            Client &c = clients.at(i - 2);
            char chunk[65536];
            const ssize_t n = ::read(c.fd, chunk, sizeof chunk);
            if (n <= 0) {
                closed.push_back(c.fd);
                continue;
            }
            c.buffer.append(chunk, n);
            while (auto argv = takeCommand(c.buffer)) {
                {
                    const std::lock_guard lock(m_mutex);
                    m_received << *argv;
                }
                const QByteArray reply = m_handler(c.id, *argv);
                if (reply == closeConnection()) {
                    closed.push_back(c.fd);
                    break;
                }
                writeAll(c.fd, reply);
            }
        }
        for (int fd : closed) {
            ::close(fd);
            std::erase_if(clients, [fd](const Client &c) { return c.fd == fd; });
        }
    }
    for (const Client &c : clients)
        ::close(c.fd);
}

QList<QList<QByteArray>> FakeRedisNode::received() const
{
    const std::lock_guard lock(m_mutex);
    return m_received;
}

int FakeRedisNode::count(const QByteArray &name) const
{
    const std::lock_guard lock(m_mutex);
    return static_cast<int>(std::count_if(m_received.begin(), m_received.end(), [&](const auto &a) {
        return !a.isEmpty() && a.first().compare(name, Qt::CaseInsensitive) == 0;
    }));
}

void FakeRedisNode::clearReceived()
{
    const std::lock_guard lock(m_mutex);
    m_received.clear();
}

} // namespace reclaim::test
