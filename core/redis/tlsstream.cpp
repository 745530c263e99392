#include "redis/tlsstream.h"

#include "redis/hostresolver.h"

#include <QDeadlineTimer>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStringList>
#include <algorithm>
#include <climits>
#include <hiredis/hiredis.h>

namespace reclaim {

namespace {

// What is left of `deadline` for one waitFor*() call: at least 1 ms (0 would not wait at all,
// and -1 for ever), so an expired deadline fails the wait as a timeout.
int waitMs(const QDeadlineTimer &deadline)
{
    return static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, INT_MAX));
}

} // namespace

void TlsStream::ReaderDeleter::operator()(redisReader *r) const
{
    redisReaderFree(r);
}

TlsStream::TlsStream(std::unique_ptr<QSslSocket> socket, QString server)
    : m_socket(std::move(socket)),
      m_reader(redisReaderCreateWithFunctions(RedisValue::readerFunctions())),
      m_server(std::move(server))
{}

TlsStream::~TlsStream() = default;

Expected<std::unique_ptr<TlsStream>, RedisError> TlsStream::open(const RedisEndpoint &endpoint,
                                                                 const QDeadlineTimer &deadline)
{
    const QString server = endpoint.serverName();
    if (!QSslSocket::supportsSsl())
        return unexpected(RedisError{
            RedisError::Kind::Tls,
            QStringLiteral("cannot connect to %1: no TLS backend is available (Qt's OpenSSL "
                           "plugin did not load)")
                .arg(server)});
    // Read again on every connection, so a rotated certificate is used without a restart.
    const auto files = loadTlsFiles(endpoint.tls);
    if (!files)
        return unexpected(
            RedisError{RedisError::Kind::Tls,
                       QStringLiteral("cannot connect to %1: connections.redisTls.%2: %3")
                           .arg(server, files.error().key, files.error().problem)});

    QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
    conf.setProtocol(QSsl::SecureProtocols);
    if (!files->ca.isEmpty())
        conf.setCaCertificates(files->ca); // only this CA: not the system's as well
    if (!files->cert.isNull()) {
        conf.setLocalCertificateChain(files->certChain);
        conf.setPrivateKey(files->key);
    }
    conf.setPeerVerifyMode(endpoint.tls.insecure ? QSslSocket::VerifyNone : QSslSocket::VerifyPeer);
    auto socket = std::make_unique<QSslSocket>();
    socket->setSslConfiguration(conf);
    // The name the certificate must carry, and the SNI sent (Qt sends none for an IP address).
    const QString peerName =
        endpoint.tls.serverName.isEmpty() ? endpoint.host : endpoint.tls.serverName;
    auto addresses = resolveHost(endpoint.host, server, deadline);
    if (!addresses)
        return unexpected(addresses.error());
    // Each address in turn, as hiredis does for plain TCP; the name is verified either way.
    for (const QString &address : *addresses) {
        socket->connectToHostEncrypted(address, static_cast<quint16>(endpoint.port), peerName);
        if (socket->waitForConnected(waitMs(deadline)))
            break;
        const bool timedOut =
            socket->error() == QAbstractSocket::SocketTimeoutError || deadline.hasExpired();
        if (timedOut || address == addresses->last())
            return unexpected(RedisError{
                timedOut ? RedisError::Kind::Timeout : RedisError::Kind::Connect,
                timedOut ? QStringLiteral("cannot connect to %1: no answer in time").arg(server)
                         : QStringLiteral("cannot connect to %1: %2")
                               .arg(server, socket->errorString())});
        socket->abort();
    }
    if (!socket->waitForEncrypted(waitMs(deadline))) {
        QStringList reasons;
        bool untrusted = false;
        for (const QSslError &e : socket->sslHandshakeErrors()) {
            reasons << e.errorString();
            untrusted = untrusted || e.error() == QSslError::SelfSignedCertificateInChain ||
                        e.error() == QSslError::UnableToGetLocalIssuerCertificate ||
                        e.error() == QSslError::UnableToVerifyFirstCertificate ||
                        e.error() == QSslError::CertificateUntrusted ||
                        e.error() == QSslError::SelfSignedCertificate;
        }
        if (reasons.isEmpty() && socket->error() == QAbstractSocket::SocketTimeoutError)
            return unexpected(RedisError{
                RedisError::Kind::Timeout,
                QStringLiteral("TLS handshake with %1 did not complete in time").arg(server)});
        if (reasons.isEmpty())
            reasons << socket->errorString();
        reasons.removeDuplicates();
        return unexpected(RedisError{
            RedisError::Kind::Tls, QStringLiteral("TLS handshake with %1 (verified as '%2') "
                                                  "failed: %3")
                                       .arg(server, peerName, reasons.join(QStringLiteral("; ")))});
    }
    return std::unique_ptr<TlsStream>(new TlsStream(std::move(socket), server));
}

RedisError TlsStream::socketError(const QString &doing) const
{
    switch (m_socket->error()) {
    case QAbstractSocket::SocketTimeoutError:
        return {RedisError::Kind::Timeout,
                QStringLiteral("%1 did not answer in time").arg(m_server)};
    case QAbstractSocket::RemoteHostClosedError:
        return {RedisError::Kind::Io, QStringLiteral("%1 closed the connection").arg(m_server)};
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        return {RedisError::Kind::Tls, QStringLiteral("%1: the TLS session failed while %2: %3")
                                           .arg(m_server, doing, m_socket->errorString())};
    default:
        return {RedisError::Kind::Io,
                QStringLiteral("%1: %2 failed: %3").arg(m_server, doing, m_socket->errorString())};
    }
}

Expected<bool, RedisError> TlsStream::write(const QByteArray &bytes, const QDeadlineTimer &deadline)
{
    if (m_socket->write(bytes) != bytes.size())
        return unexpected(socketError(QStringLiteral("writing")));
    // Written now, not at the next read: the server starts on this batch while the caller
    // still reads the replies of an earlier one.
    while (m_socket->bytesToWrite() > 0 || m_socket->encryptedBytesToWrite() > 0) {
        if (deadline.hasExpired())
            return unexpected(
                RedisError{RedisError::Kind::Timeout,
                           QStringLiteral("%1 did not take the command in time").arg(m_server)});
        if (!m_socket->waitForBytesWritten(waitMs(deadline)))
            return unexpected(socketError(QStringLiteral("writing")));
    }
    return true;
}

Expected<RedisValue, RedisError> TlsStream::readReply(const QDeadlineTimer &deadline)
{
    for (;;) {
        void *raw = nullptr;
        if (redisReaderGetReply(m_reader.get(), &raw) != REDIS_OK)
            return unexpected(RedisError{
                RedisError::Kind::Protocol,
                QStringLiteral("%1: %2").arg(m_server, QString::fromLocal8Bit(m_reader->errstr))});
        if (raw)
            return RedisValue::takeReply(raw);
        if (m_socket->bytesAvailable() == 0 && deadline.hasExpired())
            return unexpected(
                RedisError{RedisError::Kind::Timeout,
                           QStringLiteral("%1 did not answer in time").arg(m_server)});
        if (m_socket->bytesAvailable() == 0 && !m_socket->waitForReadyRead(waitMs(deadline)) &&
            m_socket->bytesAvailable() == 0)
            return unexpected(socketError(QStringLiteral("reading a reply")));
        const QByteArray chunk = m_socket->readAll();
        if (redisReaderFeed(m_reader.get(), chunk.constData(), static_cast<size_t>(chunk.size())) !=
            REDIS_OK)
            return unexpected(RedisError{
                RedisError::Kind::Protocol,
                QStringLiteral("%1: %2").arg(m_server, QString::fromLocal8Bit(m_reader->errstr))});
    }
}

} // namespace reclaim
