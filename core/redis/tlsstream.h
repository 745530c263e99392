// A Redis conversation over TLS: QSslSocket (OpenSSL) carries the bytes, hiredis' redisReader
// parses the replies. hiredis 0.14 (Debian 12) has no TLS of its own.
#pragma once

#include "config/connectionurl.h"
#include "ports/rediserror.h"
#include "redis/redisvalue.h"
#include "util/expected.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <memory>

class QSslSocket;
struct redisReader;

namespace reclaim {

// Blocking, with every call bounded by the caller's deadline: the waitFor*() calls need no event
// loop, so a stream works on whichever thread opened it (and only there: the socket is a QObject).
class TlsStream final
{
public:
    // Resolves the host, connects and completes the handshake with the endpoint's verification
    // settings, all before `deadline`. The name is resolved here (redis/hostresolver.h), not by
    // QAbstractSocket, whose blocking connect looks it up with no bound.
    static Expected<std::unique_ptr<TlsStream>, RedisError> open(const RedisEndpoint &endpoint,
                                                                 const QDeadlineTimer &deadline);
    ~TlsStream();
    Q_DISABLE_COPY_MOVE(TlsStream)

    // Writes the bytes and waits until the socket took them all, at most until `deadline`.
    Expected<bool, RedisError> write(const QByteArray &bytes, const QDeadlineTimer &deadline);
    // The next reply, whole before `deadline`: bytes that keep trickling in do not extend it.
    Expected<RedisValue, RedisError> readReply(const QDeadlineTimer &deadline);

private:
    struct ReaderDeleter
    {
        void operator()(redisReader *r) const;
    };

    TlsStream(std::unique_ptr<QSslSocket> socket, QString server);
    RedisError socketError(const QString &doing) const;

    std::unique_ptr<QSslSocket> m_socket;
    std::unique_ptr<redisReader, ReaderDeleter> m_reader;
    QString m_server;
};

} // namespace reclaim
