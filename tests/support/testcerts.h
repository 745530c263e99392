// Certificates a test makes with the openssl tool: a CA, server certificates good and bad
// (wrong CA, wrong host name, expired), and a client certificate for mutual TLS.
#pragma once

#include <QString>

namespace reclaim::test {

class TestCerts final
{
public:
    // Writes every file into `dir`; false with error() set when openssl fails.
    bool make(const QString &dir);
    QString error() const { return m_error; }

    QString path(const QString &name) const { return m_dir + QLatin1Char('/') + name; }
    QString ca() const { return path(QStringLiteral("ca.pem")); }
    QString serverCert() const
    {
        return path(QStringLiteral("server.pem"));
    } // 127.0.0.1, localhost
    QString serverKey() const { return path(QStringLiteral("server.key")); }
    QString otherCa() const { return path(QStringLiteral("other-ca.pem")); } // signed nothing here
    QString otherCaKey() const { return path(QStringLiteral("other-ca.key")); }
    QString wrongHostCert() const { return path(QStringLiteral("wronghost.pem")); } // wrong.example
    QString expiredCert() const { return path(QStringLiteral("expired.pem")); }     // Jan 2020
    QString clientCert() const { return path(QStringLiteral("client.pem")); }
    QString clientKey() const { return path(QStringLiteral("client.key")); }
    // A client certificate from the other CA, which the server does not trust.
    QString strangerCert() const { return path(QStringLiteral("stranger.pem")); }
    QString strangerKey() const { return path(QStringLiteral("stranger.key")); }
    // A client certificate from an intermediate CA the CA signed, in one file with that
    // intermediate (leaf first): a server that trusts only the CA verifies it only if the
    // client sends the whole chain.
    QString chainedClientCert() const { return path(QStringLiteral("chained-client-chain.pem")); }
    QString chainedClientKey() const { return path(QStringLiteral("chained-client.key")); }
    // The same certificate alone, without its intermediate.
    QString chainedClientLeaf() const { return path(QStringLiteral("chained-client.pem")); }

private:
    bool openssl(const QStringList &args);
    bool writeFile(const QString &name, const QByteArray &text);
    bool selfSignedCa(const QString &base, const QString &cn);
    bool keyAndRequest(const QString &base, const QString &cn, bool rsa);
    bool sign(const QString &base, const QString &caBase, const QString &san,
              const QByteArray &extra = {});

    QString m_dir;
    QString m_error;
};

} // namespace reclaim::test
