#include "sentinelset.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTcpServer>
#include <QThread>
#include <functional>

namespace reclaim::test {

namespace {

// Free loopback ports, all held open together so no two are the same.
QList<int> freePorts(int count)
{
    std::vector<std::unique_ptr<QTcpServer>> held;
    QList<int> ports;
    for (int i = 0; i < count; ++i) {
        held.push_back(std::make_unique<QTcpServer>());
        held.back()->listen(QHostAddress::LocalHost, 0);
        ports << held.back()->serverPort();
    }
    return ports;
}

bool waitUntil(const std::function<bool()> &ready, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        if (ready())
            return true;
        QThread::msleep(100);
    }
    return ready();
}

} // namespace

SentinelSet::SentinelSet(QString password)
    : SentinelSet([&] {
          Options o;
          o.password = std::move(password);
          return o;
      }())
{}

SentinelSet::SentinelSet(Options options) : m_options(std::move(options))
{
    const QList<int> ports = freePorts(6);
    m_dataPorts[0] = ports[0];
    m_dataPorts[1] = ports[1];
    for (int i = 0; i < 3; ++i)
        m_sentinelPorts[i] = ports[2 + i];
    m_deadPort = ports[5];
}

SentinelSet::~SentinelSet()
{
    // Sentinels first, so none starts a failover while the data nodes go down.
    for (auto it = m_processes.rbegin(); it != m_processes.rend(); ++it) {
        (*it)->terminate();
        if (!(*it)->waitForFinished(5000)) {
            (*it)->kill();
            (*it)->waitForFinished();
        }
    }
}

Expected<RedisConnection, RedisError> SentinelSet::connect(int port, const QString &password)
{
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = port;
    e.password = password;
    return RedisConnection::open(e, std::chrono::milliseconds(1000));
}

Expected<RedisConnection, RedisError> SentinelSet::open(int port, bool sentinel) const
{
    RedisEndpoint e;
    e.host = QStringLiteral("127.0.0.1");
    e.port = port;
    e.user = sentinel ? m_options.sentinelUser : QString();
    e.password = sentinel ? m_options.sentinelPassword : m_options.password;
    e.tls.enabled = tls();
    e.tls.caFile = m_options.tlsCa;
    return RedisConnection::open(e, std::chrono::milliseconds(1000));
}

QStringList SentinelSet::tlsArgs(int port) const
{
    if (!tls())
        return {QStringLiteral("--port"), QString::number(port)};
    return {QStringLiteral("--port"),
            QStringLiteral("0"),
            QStringLiteral("--tls-port"),
            QString::number(port),
            QStringLiteral("--tls-cert-file"),
            m_options.tlsCert,
            QStringLiteral("--tls-key-file"),
            m_options.tlsKey,
            QStringLiteral("--tls-ca-cert-file"),
            m_options.tlsCa,
            QStringLiteral("--tls-auth-clients"),
            QStringLiteral("no"),
            QStringLiteral("--tls-replication"),
            QStringLiteral("yes")};
}

QString SentinelSet::role(int port, const QString &password)
{
    auto c = connect(port, password);
    if (!c)
        return {};
    auto r = c->command({QByteArrayLiteral("ROLE")});
    if (!r || !r->isArray() || r->elements.isEmpty())
        return {};
    return r->elements.first().toText();
}

int SentinelSet::masterPortSeenBy(int i) const
{
    auto c = open(m_sentinelPorts[i], true);
    if (!c)
        return 0;
    auto r = c->command({QByteArrayLiteral("SENTINEL"),
                         QByteArrayLiteral("get-master-addr-by-name"), QByteArray(kMasterName)});
    if (!r || !r->isArray() || r->elements.size() != 2)
        return 0;
    return r->elements.at(1).toText().toInt();
}

QString SentinelSet::url(bool leadWithADeadSentinel) const
{
    QStringList nodes;
    if (leadWithADeadSentinel)
        nodes << QStringLiteral("127.0.0.1:%1").arg(m_deadPort);
    for (int port : m_sentinelPorts)
        nodes << QStringLiteral("127.0.0.1:%1").arg(port);
    return QStringLiteral("%1://%2/%3")
        .arg(tls() ? QLatin1String("rediss+sentinel") : QLatin1String("redis+sentinel"),
             nodes.join(QLatin1Char(',')), QLatin1String(kMasterName));
}

bool SentinelSet::start()
{
    auto launch = [&](const QStringList &args) {
        m_processes.push_back(std::make_unique<QProcess>());
        QProcess &p = *m_processes.back();
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(QStringLiteral("redis-server"), args);
        return p.waitForStarted(5000);
    };
    for (int i = 0; i < 2; ++i) {
        QStringList args = tlsArgs(m_dataPorts[i]);
        args += QStringList{QStringLiteral("--bind"),       QStringLiteral("127.0.0.1"),
                            QStringLiteral("--save"),       QString(),
                            QStringLiteral("--appendonly"), QStringLiteral("no"),
                            QStringLiteral("--dir"),        m_dir.path(),
                            QStringLiteral("--dbfilename"), QStringLiteral("node%1.rdb").arg(i)};
        if (!m_options.password.isEmpty())
            args << QStringLiteral("--requirepass") << m_options.password
                 << QStringLiteral("--masterauth") << m_options.password;
        if (i == 1)
            args << QStringLiteral("--replicaof") << QStringLiteral("127.0.0.1")
                 << QString::number(m_dataPorts[0]);
        if (!launch(args)) {
            m_error = QStringLiteral("redis-server did not start");
            return false;
        }
    }
    auto replicaInSync = [&] {
        auto c = open(m_dataPorts[1], false);
        if (!c)
            return false;
        auto info = c->command({QByteArrayLiteral("INFO"), QByteArrayLiteral("replication")});
        return info && info->toText().contains(QLatin1String("master_link_status:up"));
    };
    if (!waitUntil(replicaInSync, 20000)) {
        m_error = QStringLiteral("the replica did not sync with the master");
        return false;
    }
    for (int i = 0; i < 3; ++i) {
        // A sentinel rewrites its configuration file: each gets its own, writable.
        const QString conf = m_dir.path() + QStringLiteral("/sentinel%1.conf").arg(i);
        QFile f(conf);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(QStringLiteral("bind 127.0.0.1\ndir %1\n"
                               "sentinel monitor %2 127.0.0.1 %3 2\n"
                               "sentinel down-after-milliseconds %2 1000\n"
                               "sentinel failover-timeout %2 3000\n"
                               "sentinel parallel-syncs %2 1\n")
                    .arg(m_dir.path(), QLatin1String(kMasterName), QString::number(m_dataPorts[0]))
                    .toUtf8());
        if (!m_options.password.isEmpty())
            f.write(QStringLiteral("sentinel auth-pass %1 %2\n")
                        .arg(QLatin1String(kMasterName), m_options.password)
                        .toUtf8());
        if (!m_options.sentinelPassword.isEmpty() && m_options.sentinelUser.isEmpty())
            f.write(QStringLiteral("requirepass %1\nsentinel sentinel-pass %1\n")
                        .arg(m_options.sentinelPassword)
                        .toUtf8());
        if (!m_options.sentinelUser.isEmpty())
            f.write(QStringLiteral("user default off\nuser %1 on >%2 ~* &* +@all\n"
                                   "sentinel sentinel-user %1\nsentinel sentinel-pass %2\n")
                        .arg(m_options.sentinelUser, m_options.sentinelPassword)
                        .toUtf8());
        f.close();
        // The port (or TLS port and files) as arguments: the same as for the data nodes.
        QStringList args{conf, QStringLiteral("--sentinel")};
        args += tlsArgs(m_sentinelPorts[i]);
        if (!launch(args)) {
            m_error = QStringLiteral("redis-server --sentinel did not start");
            return false;
        }
    }
    // A forced failover needs the sentinel to know a healthy replica; the others learn the new
    // master from its hello messages, so each must know the other two.
    auto sentinelsReady = [&] {
        for (int port : m_sentinelPorts) {
            auto c = open(port, true);
            if (!c)
                return false;
            auto replicas = c->command({QByteArrayLiteral("SENTINEL"),
                                        QByteArrayLiteral("replicas"), QByteArray(kMasterName)});
            auto peers = c->command({QByteArrayLiteral("SENTINEL"), QByteArrayLiteral("sentinels"),
                                     QByteArray(kMasterName)});
            if (!replicas || !peers || replicas->elements.size() != 1 ||
                peers->elements.size() != 2)
                return false;
        }
        return true;
    };
    if (!waitUntil(sentinelsReady, 30000)) {
        m_error = QStringLiteral("the sentinels did not discover the replica and each other");
        return false;
    }
    return true;
}

} // namespace reclaim::test
