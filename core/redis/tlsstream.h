// A Redis conversation over TLS: QSslSocket (OpenSSL) carries the bytes, hiredis' redisReader
// parses the replies. hiredis 0.14 (Debian 12) has no TLS of its own.
#pragma once

#include "config/connectionurl.h"
#include "ports/rediserror.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QByteArray>
#include <chrono>
#include <memory>

class QSslSocket;
struct redisReader;

namespace reclaim {

// Blocking, with every wait bounded by the timeout: the waitFor*() calls need no event loop, so
// a stream works on whichever thread opened it (and only there: the socket is a QObject).
class TlsStream final
{
public:
    // Connects and completes the handshake with the endpoint's verification settings.
    static Expected<std::unique_ptr<TlsStream>, RedisError> open(const RedisEndpoint &endpoint,
                                                                 std::chrono::milliseconds timeout);
    ~TlsStream();
    Q_DISABLE_COPY_MOVE(TlsStream)

    // Writes the bytes and waits until the socket took them all.
    Expected<bool, RedisError> write(const QByteArray &bytes);
    // The next reply, waiting for its bytes as long as they keep arriving within the timeout.
    Expected<RedisValue, RedisError> readReply();

private:
    struct ReaderDeleter
    {
        void operator()(redisReader *r) const;
    };

    TlsStream(std::unique_ptr<QSslSocket> socket, QString server,
              std::chrono::milliseconds timeout);
    RedisError socketError(const QString &doing) const;

    std::unique_ptr<QSslSocket> m_socket;
    std::unique_ptr<redisReader, ReaderDeleter> m_reader;
    QString m_server;
    std::chrono::milliseconds m_timeout;
};

} // namespace reclaim
