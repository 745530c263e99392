// The TLS settings of a rediss:// connection (connections.redisTls) and the files they name.
#pragma once

#include "util/expected.h"

#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>

namespace reclaim {

struct RedisTls
{
    bool enabled = false;  // rediss://
    QString caFile;        // PEM CA bundle; empty: the system's trusted CAs
    QString certFile;      // PEM client certificate for mutual TLS (with keyFile)
    QString keyFile;       // its unencrypted PEM private key
    QString serverName;    // SNI and the name the certificate must carry; empty: the URL's host
    bool insecure = false; // no certificate or host verification at all: loud by design

    // The warning every connection and run repeats while verification is off; empty otherwise.
    QString insecureWarning(const QString &server) const;
};

// What the TLS files hold, read and parsed.
struct TlsFiles
{
    QList<QSslCertificate> ca;
    QSslCertificate cert;
    // The client certificate followed by the intermediates its file holds: the whole chain is
    // sent, so a server that trusts only the root CA can verify it.
    QList<QSslCertificate> certChain;
    QSslKey key;
};

// A TLS file that cannot be used: the settings key that names it, and why.
struct TlsFileError
{
    QString key; // "ca", "cert" or "key"
    QString problem;
};

// Reads and parses every file `tls` names. The problem names the file, never its contents.
Expected<TlsFiles, TlsFileError> loadTlsFiles(const RedisTls &tls);

} // namespace reclaim
