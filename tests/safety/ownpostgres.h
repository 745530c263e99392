// A PostgreSQL 15 server owned by one test: its own data directory, loopback port and Unix
// socket directory (paths with a space in them), optionally TLS with certificates the test made.
#pragma once

#include <QString>
#include <QTemporaryDir>

namespace reclaim::test {

class OwnPostgres final
{
public:
    // Where the test's CA, server and client certificates are (OwnPostgres::makeCertificates).
    struct Tls
    {
        QString caCert;      // the CA that signed the server and client certificates
        QString otherCaCert; // a CA that signed nothing here: a client trusting it must refuse
        QString serverCert;  // CN localhost, SAN DNS:localhost, IP:127.0.0.1
        QString serverKey;
        QString clientCert; // CN reclaim
        QString clientKey;
    };

    OwnPostgres();
    ~OwnPostgres();
    Q_DISABLE_COPY_MOVE(OwnPostgres)

    // Makes the certificates with openssl in a directory whose name has a space; false (and
    // `error()` says why) when openssl failed.
    bool makeCertificates();
    const Tls &tls() const { return m_tls; }

    // initdb (user "reclaim", password `password()`, scram over TCP, trust on the socket) and
    // start. With TLS, TCP connections must use TLS and present a client certificate the CA
    // signed. Waits until the server accepts connections.
    bool start(bool withTls);
    void stop();

    int port() const { return m_port; }
    QString socketDir() const { return m_dir.path() + QStringLiteral("/sock dir"); }
    static QString password() { return QStringLiteral("pw-Vq81-secret"); }
    QString error() const { return m_error; }

private:
    bool run(const QString &program, const QStringList &args, bool asServiceUser);

    QTemporaryDir m_dir;
    int m_port = 0;
    Tls m_tls;
    QString m_error;
    bool m_started = false;
};

} // namespace reclaim::test
