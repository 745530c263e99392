#include "redis/hostresolver.h"

#include <QHostAddress>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <netdb.h>
#include <sys/socket.h>
#include <thread>

namespace reclaim {

namespace {

// What the lookup thread found; shared, so a caller that stopped waiting leaves it to the thread.
struct Lookup
{
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    int status = 0;
    QStringList addresses;
};

void lookUp(const std::shared_ptr<Lookup> &lookup, const QByteArray &name)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int status = getaddrinfo(name.constData(), nullptr, &hints, &found);
    QStringList addresses;
    for (const addrinfo *a = status == 0 ? found : nullptr; a; a = a->ai_next) {
        char text[NI_MAXHOST];
        if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) ==
                0 &&
            !addresses.contains(QLatin1String(text)))
            addresses << QString::fromLatin1(text);
    }
    if (found)
        freeaddrinfo(found);
    const std::lock_guard guard(lookup->mutex);
    lookup->status = status;
    lookup->addresses = std::move(addresses);
    lookup->finished = true;
    lookup->done.notify_all();
}

} // namespace

Expected<QStringList, RedisError> resolveHost(const QString &host, const QString &serverName,
                                              const QDeadlineTimer &deadline)
{
    if (QHostAddress address; address.setAddress(host))
        return QStringList{host};
    auto lookup = std::make_shared<Lookup>();
    try {
        std::thread(lookUp, lookup, host.toUtf8()).detach();
    } catch (const std::system_error &e) {
        return unexpected(RedisError{RedisError::Kind::Connect,
                                     QStringLiteral("cannot resolve %1: no thread to look it up "
                                                    "on (%2)")
                                         .arg(serverName, QString::fromLocal8Bit(e.what()))});
    }
    std::unique_lock lock(lookup->mutex);
    const bool finished = lookup->done.wait_for(lock, deadline.remainingTimeAsDuration(),
                                                [&] { return lookup->finished; });
    if (!finished)
        return unexpected(
            RedisError{RedisError::Kind::Timeout,
                       QStringLiteral("cannot resolve %1: the resolver did not answer in time")
                           .arg(serverName)});
    if (lookup->status != 0)
        return unexpected(
            RedisError{RedisError::Kind::Connect,
                       QStringLiteral("cannot resolve %1: %2")
                           .arg(serverName, QString::fromLocal8Bit(gai_strerror(lookup->status)))});
    if (lookup->addresses.isEmpty())
        return unexpected(
            RedisError{RedisError::Kind::Connect,
                       QStringLiteral("cannot resolve %1: no address for it").arg(serverName)});
    return lookup->addresses;
}

} // namespace reclaim
