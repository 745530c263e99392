#include "config/redistls.h"

#include <QFile>

namespace reclaim {

QString RedisTls::insecureWarning(const QString &server) const
{
    if (!enabled || !insecure)
        return {};
    return QStringLiteral("TLS verification is OFF for %1 (connections.redisTls.insecure is "
                          "true): any server, or anyone between, can pose as this Redis")
        .arg(server);
}

namespace {

Expected<QByteArray, TlsFileError> readFile(const QString &key, const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return unexpected(TlsFileError{key, QStringLiteral("no such file: %1").arg(path)});
    if (!file.open(QIODevice::ReadOnly))
        return unexpected(
            TlsFileError{key, QStringLiteral("cannot read %1: %2").arg(path, file.errorString())});
    return file.readAll();
}

// A PEM key does not say its algorithm to QSslKey: each one is tried in turn.
QSslKey parseKey(const QByteArray &pem)
{
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa, QSsl::Dh}) {
        QSslKey key(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return {};
}

} // namespace

Expected<TlsFiles, TlsFileError> loadTlsFiles(const RedisTls &tls)
{
    TlsFiles files;
    if (!tls.caFile.isEmpty()) {
        auto pem = readFile(QStringLiteral("ca"), tls.caFile);
        if (!pem)
            return unexpected(pem.error());
        files.ca = QSslCertificate::fromData(*pem, QSsl::Pem);
        if (files.ca.isEmpty())
            return unexpected(
                TlsFileError{QStringLiteral("ca"),
                             QStringLiteral("%1 holds no PEM certificate").arg(tls.caFile)});
    }
    if (!tls.certFile.isEmpty()) {
        auto pem = readFile(QStringLiteral("cert"), tls.certFile);
        if (!pem)
            return unexpected(pem.error());
        const QList<QSslCertificate> certs = QSslCertificate::fromData(*pem, QSsl::Pem);
        if (certs.isEmpty())
            return unexpected(
                TlsFileError{QStringLiteral("cert"),
                             QStringLiteral("%1 holds no PEM certificate").arg(tls.certFile)});
        files.cert = certs.first();
        files.certChain = certs;
    }
    if (!tls.keyFile.isEmpty()) {
        auto pem = readFile(QStringLiteral("key"), tls.keyFile);
        if (!pem)
            return unexpected(pem.error());
        files.key = parseKey(*pem);
        if (files.key.isNull())
            return unexpected(TlsFileError{
                QStringLiteral("key"),
                QStringLiteral("%1 holds no unencrypted PEM private key (RSA, EC, DSA or DH)")
                    .arg(tls.keyFile)});
    }
    return files;
}

} // namespace reclaim
