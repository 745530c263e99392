#include "support/testcerts.h"

#include <QDir>
#include <QFile>
#include <QProcess>

namespace reclaim::test {

bool TestCerts::openssl(const QStringList &args)
{
    QProcess p;
    p.setWorkingDirectory(m_dir);
    p.start(QStringLiteral("openssl"), args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        m_error = QStringLiteral("openssl %1 failed: %2")
                      .arg(args.join(QLatin1Char(' ')),
                           QString::fromLocal8Bit(p.readAllStandardError()) + p.errorString());
        return false;
    }
    return true;
}

bool TestCerts::writeFile(const QString &name, const QByteArray &text)
{
    QFile f(path(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) {
        m_error = QStringLiteral("cannot write %1").arg(f.fileName());
        return false;
    }
    return true;
}

bool TestCerts::selfSignedCa(const QString &base, const QString &cn)
{
    return openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                    QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                    QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                    QStringLiteral("-keyout"), base + QStringLiteral(".key"),
                    QStringLiteral("-out"), base + QStringLiteral(".pem"), QStringLiteral("-days"),
                    QStringLiteral("30"), QStringLiteral("-subj"), QStringLiteral("/CN=") + cn});
}

// The client key is RSA, the others EC: both kinds of key file are read.
bool TestCerts::keyAndRequest(const QString &base, const QString &cn, bool rsa)
{
    QStringList args{QStringLiteral("req"), QStringLiteral("-newkey")};
    if (rsa)
        args << QStringLiteral("rsa:2048");
    else
        args << QStringLiteral("ec") << QStringLiteral("-pkeyopt")
             << QStringLiteral("ec_paramgen_curve:prime256v1");
    args << QStringLiteral("-nodes") << QStringLiteral("-keyout") << base + QStringLiteral(".key")
         << QStringLiteral("-out") << base + QStringLiteral(".csr") << QStringLiteral("-subj")
         << QStringLiteral("/CN=") + cn;
    return openssl(args);
}

bool TestCerts::sign(const QString &base, const QString &caBase, const QString &san,
                     const QByteArray &extra)
{
    const QString ext = base + QStringLiteral(".ext");
    if (!writeFile(ext, "subjectAltName=" + san.toUtf8() + "\n" + extra))
        return false;
    return openssl(
        {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
         base + QStringLiteral(".csr"), QStringLiteral("-CA"), caBase + QStringLiteral(".pem"),
         QStringLiteral("-CAkey"), caBase + QStringLiteral(".key"), QStringLiteral("-set_serial"),
         QString::number(qHash(base) & 0xffffff), QStringLiteral("-days"), QStringLiteral("30"),
         QStringLiteral("-extfile"), ext, QStringLiteral("-out"), base + QStringLiteral(".pem")});
}

bool TestCerts::make(const QString &dir)
{
    m_dir = dir;
    const QString localSan = QStringLiteral("IP:127.0.0.1,DNS:localhost");
    if (!selfSignedCa(QStringLiteral("ca"), QStringLiteral("Reclaim Test CA")) ||
        !selfSignedCa(QStringLiteral("other-ca"), QStringLiteral("Some Other CA")) ||
        !keyAndRequest(QStringLiteral("server"), QStringLiteral("localhost"), false) ||
        !sign(QStringLiteral("server"), QStringLiteral("ca"), localSan) ||
        !keyAndRequest(QStringLiteral("wronghost"), QStringLiteral("wrong.example"), false) ||
        !sign(QStringLiteral("wronghost"), QStringLiteral("ca"),
              QStringLiteral("DNS:wrong.example")) ||
        !keyAndRequest(QStringLiteral("client"), QStringLiteral("reclaim-client"), true) ||
        !sign(QStringLiteral("client"), QStringLiteral("ca"),
              QStringLiteral("DNS:reclaim-client")) ||
        !keyAndRequest(QStringLiteral("stranger"), QStringLiteral("stranger"), false) ||
        !sign(QStringLiteral("stranger"), QStringLiteral("other-ca"),
              QStringLiteral("DNS:stranger")) ||
        !keyAndRequest(QStringLiteral("intermediate"), QStringLiteral("Reclaim Test Issuing CA"),
                       false) ||
        !sign(QStringLiteral("intermediate"), QStringLiteral("ca"),
              QStringLiteral("DNS:intermediate"),
              "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n") ||
        !keyAndRequest(QStringLiteral("chained-client"), QStringLiteral("reclaim-chained"),
                       false) ||
        !sign(QStringLiteral("chained-client"), QStringLiteral("intermediate"),
              QStringLiteral("DNS:reclaim-chained")))
        return false;
    {
        QFile leaf(path(QStringLiteral("chained-client.pem")));
        QFile issuer(path(QStringLiteral("intermediate.pem")));
        if (!leaf.open(QIODevice::ReadOnly) || !issuer.open(QIODevice::ReadOnly) ||
            !writeFile(QStringLiteral("chained-client-chain.pem"),
                       leaf.readAll() + issuer.readAll()))
            return false;
    }
    // Expired: x509 -req of OpenSSL 3.0 cannot set a start date in the past; `openssl ca` can.
    if (!QDir(m_dir).mkpath(QStringLiteral("cadb")) ||
        !writeFile(QStringLiteral("cadb/index.txt"), {}) ||
        !writeFile(QStringLiteral("cadb/serial"), "1000\n") ||
        !writeFile(QStringLiteral("ca.cnf"),
                   "[ca]\ndefault_ca = test\n[test]\ndatabase = cadb/index.txt\n"
                   "new_certs_dir = cadb\nserial = cadb/serial\ndefault_md = sha256\n"
                   "policy = any\nunique_subject = no\n[any]\ncommonName = supplied\n"
                   "[ext]\nsubjectAltName = IP:127.0.0.1,DNS:localhost\n"))
        return false;
    return openssl({QStringLiteral("ca"), QStringLiteral("-batch"), QStringLiteral("-config"),
                    QStringLiteral("ca.cnf"), QStringLiteral("-cert"), QStringLiteral("ca.pem"),
                    QStringLiteral("-keyfile"), QStringLiteral("ca.key"), QStringLiteral("-in"),
                    QStringLiteral("server.csr"), QStringLiteral("-out"),
                    QStringLiteral("expired.pem"), QStringLiteral("-startdate"),
                    QStringLiteral("20200101000000Z"), QStringLiteral("-enddate"),
                    QStringLiteral("20200201000000Z"), QStringLiteral("-extensions"),
                    QStringLiteral("ext"), QStringLiteral("-notext")});
}

} // namespace reclaim::test
