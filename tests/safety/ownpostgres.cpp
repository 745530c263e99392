#include "ownpostgres.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTcpServer>
#include <unistd.h>

namespace reclaim::test {

namespace {

const QString kPgBin = QStringLiteral("/usr/lib/postgresql/15/bin/");

// initdb and the server refuse to run as root: the sandbox runs them as "postgres".
bool asRoot()
{
    return ::geteuid() == 0;
}

bool write(const QString &path, const QByteArray &text, bool append = false)
{
    QFile f(path);
    if (!f.open(append ? QIODevice::Append : QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(text) == text.size();
}

QByteArray quoted(const QString &path)
{
    return "'" + path.toUtf8() + "'";
}

} // namespace

OwnPostgres::OwnPostgres() : m_dir(QDir::tempPath() + QStringLiteral("/reclaim pg XXXXXX"))
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    m_port = probe.serverPort();
}

OwnPostgres::~OwnPostgres()
{
    stop();
}

bool OwnPostgres::run(const QString &program, const QStringList &args, bool asServiceUser)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    if (asServiceUser && asRoot())
        p.start(QStringLiteral("runuser"),
                QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"),
                            program} +
                    args);
    else
        p.start(program, args);
    if (!p.waitForFinished(90000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        m_error = QStringLiteral("%1 failed: %2")
                      .arg(QFileInfo(program).fileName(), QString::fromUtf8(p.readAll()));
        return false;
    }
    return true;
}

bool OwnPostgres::makeCertificates()
{
    const QString dir = m_dir.path() + QStringLiteral("/certs dir");
    QDir().mkpath(dir);
    m_tls = Tls{dir + QStringLiteral("/ca.crt"),     dir + QStringLiteral("/other-ca.crt"),
                dir + QStringLiteral("/server.crt"), dir + QStringLiteral("/server.key"),
                dir + QStringLiteral("/client.crt"), dir + QStringLiteral("/client.key")};
    const QString openssl = QStringLiteral("openssl");
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"),
                         QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                         QStringLiteral("-nodes")};
    auto selfSigned = [&](const QString &name, const QString &cn) {
        return run(openssl,
                   QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec +
                       QStringList{QStringLiteral("-keyout"),
                                   dir + QLatin1Char('/') + name + QStringLiteral(".key"),
                                   QStringLiteral("-out"),
                                   dir + QLatin1Char('/') + name + QStringLiteral(".crt"),
                                   QStringLiteral("-days"), QStringLiteral("2"),
                                   QStringLiteral("-subj"), QStringLiteral("/CN=") + cn},
                   false);
    };
    auto signedBy = [&](const QString &name, const QString &cn, const QString &extensions) {
        const QString base = dir + QLatin1Char('/') + name;
        if (!write(base + QStringLiteral(".ext"), extensions.toUtf8()))
            return false;
        return run(openssl,
                   QStringList{QStringLiteral("req")} + ec +
                       QStringList{QStringLiteral("-keyout"), base + QStringLiteral(".key"),
                                   QStringLiteral("-out"), base + QStringLiteral(".csr"),
                                   QStringLiteral("-subj"), QStringLiteral("/CN=") + cn},
                   false) &&
               run(openssl,
                   {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                    base + QStringLiteral(".csr"), QStringLiteral("-CA"), m_tls.caCert,
                    QStringLiteral("-CAkey"), dir + QStringLiteral("/ca.key"),
                    QStringLiteral("-CAcreateserial"), QStringLiteral("-out"),
                    base + QStringLiteral(".crt"), QStringLiteral("-days"), QStringLiteral("2"),
                    QStringLiteral("-extfile"), base + QStringLiteral(".ext")},
                   false);
    };
    return selfSigned(QStringLiteral("ca"), QStringLiteral("reclaim test CA")) &&
           selfSigned(QStringLiteral("other-ca"), QStringLiteral("some other CA")) &&
           signedBy(QStringLiteral("server"), QStringLiteral("localhost"),
                    QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1\n")) &&
           signedBy(QStringLiteral("client"), QStringLiteral("reclaim"),
                    QStringLiteral("extendedKeyUsage=clientAuth\n")) &&
           // libpq and the server both refuse a private key that others may read.
           run(QStringLiteral("chmod"), {QStringLiteral("600"), m_tls.serverKey, m_tls.clientKey},
               false);
}

bool OwnPostgres::start(bool withTls)
{
    const QString base = m_dir.path();
    const QString data = base + QStringLiteral("/data");
    QDir().mkpath(socketDir());
    if (!write(base + QStringLiteral("/pwfile"), password().toUtf8() + '\n'))
        return false;
    if (asRoot()) {
        // The server reads its key and writes its socket as "postgres"; the client key stays
        // root's (libpq refuses a key others can read).
        QStringList owned{base, socketDir(), base + QStringLiteral("/pwfile")};
        if (withTls)
            owned << QFileInfo(m_tls.serverKey).absolutePath() << m_tls.serverKey
                  << m_tls.serverCert << m_tls.caCert;
        if (!run(QStringLiteral("chown"), QStringList{QStringLiteral("postgres")} + owned, false))
            return false;
    }
    if (!run(kPgBin + QStringLiteral("initdb"),
             {QStringLiteral("-D"), data, QStringLiteral("-U"), QStringLiteral("reclaim"),
              QStringLiteral("--pwfile=") + base + QStringLiteral("/pwfile"),
              QStringLiteral("--auth-local=trust"), QStringLiteral("--auth-host=scram-sha-256"),
              QStringLiteral("-E"), QStringLiteral("UTF8"), QStringLiteral("--locale=C.UTF-8"),
              QStringLiteral("--no-sync")},
             true))
        return false;
    QByteArray conf = "listen_addresses = '127.0.0.1'\nport = " + QByteArray::number(m_port) +
                      "\nunix_socket_directories = " + quoted(socketDir()) +
                      "\nfsync = off\nshared_buffers = 16MB\nmax_connections = 20\n";
    QByteArray hba = "local all all trust\n";
    if (withTls) {
        conf += "ssl = on\nssl_cert_file = " + quoted(m_tls.serverCert) +
                "\nssl_key_file = " + quoted(m_tls.serverKey) +
                "\nssl_ca_file = " + quoted(m_tls.caCert) + "\n";
        hba += "hostssl all all 127.0.0.1/32 scram-sha-256 clientcert=verify-ca\n"
               "hostnossl all all 127.0.0.1/32 reject\n";
    } else {
        hba += "host all all 127.0.0.1/32 scram-sha-256\n";
    }
    if (!write(data + QStringLiteral("/postgresql.conf"), conf, true) ||
        !write(data + QStringLiteral("/pg_hba.conf"), hba))
        return false;
    if (!run(kPgBin + QStringLiteral("pg_ctl"),
             {QStringLiteral("-D"), data, QStringLiteral("-l"), base + QStringLiteral("/pg.log"),
              QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("60"),
              QStringLiteral("start")},
             true)) {
        QFile log(base + QStringLiteral("/pg.log"));
        if (log.open(QIODevice::ReadOnly))
            m_error += QString::fromUtf8(log.readAll());
        return false;
    }
    m_started = true;
    return true;
}

void OwnPostgres::stop()
{
    if (!m_started)
        return;
    run(kPgBin + QStringLiteral("pg_ctl"),
        {QStringLiteral("-D"), m_dir.path() + QStringLiteral("/data"), QStringLiteral("-m"),
         QStringLiteral("immediate"), QStringLiteral("-w"), QStringLiteral("stop")},
        true);
    m_started = false;
}

} // namespace reclaim::test
