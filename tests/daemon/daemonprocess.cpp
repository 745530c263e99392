#include "daemonprocess.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>
#include <csignal>

namespace reclaim::test {

HttpResult httpGet(quint16 port, const QString &path, int timeoutMs)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)));
    request.setTransferTimeout(timeoutMs);
    std::unique_ptr<QNetworkReply> reply(nam.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(timeoutMs + 1000))
        return {};
    HttpResult r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    return r;
}

double metricValue(const QByteArray &exposition, const QString &sample)
{
    for (const QByteArray &line : exposition.split('\n')) {
        const QString text = QString::fromUtf8(line);
        if (text.startsWith(sample + QLatin1Char(' ')))
            return text.mid(sample.size() + 1).toDouble();
    }
    return -1;
}

QProcessEnvironment daemonEnvironment(const QProcessEnvironment &extra)
{
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    QProcessEnvironment env;
    for (const char *name : {"PATH", "HOME", "USER", "LANG", "TMPDIR"})
        if (system.contains(QString::fromLatin1(name)))
            env.insert(QString::fromLatin1(name), system.value(QString::fromLatin1(name)));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("no-such-platform"));
    env.insert(extra);
    return env;
}

RedisWritePause::RedisWritePause(const SandboxEnv &env) : m_admin(redis(env))
{
    // Long enough for any test step; release() ends it as soon as the test is ready.
    m_active = m_admin
                   .command({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("PAUSE"),
                             QByteArrayLiteral("60000"), QByteArrayLiteral("WRITE")})
                   .hasValue();
}

RedisWritePause::~RedisWritePause()
{
    release();
}

int RedisWritePause::blockedClients()
{
    auto info = m_admin.command({QByteArrayLiteral("INFO"), QByteArrayLiteral("clients")});
    if (!info)
        return -1;
    for (const QByteArray &line : info->string.split('\n'))
        if (line.startsWith("blocked_clients:"))
            return line.mid(16).trimmed().toInt();
    return -1;
}

void RedisWritePause::release()
{
    if (m_active)
        m_admin.command({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("UNPAUSE")});
    m_active = false;
}

DaemonProcess::DaemonProcess(QProcessEnvironment env, QObject *parent) : QObject(parent)
{
    m_process.setProcessEnvironment(env);
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    connect(&m_process, &QProcess::readyReadStandardError, this, &DaemonProcess::readStderr);
}

DaemonProcess::~DaemonProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool DaemonProcess::start(const QStringList &args)
{
    m_process.start(QStringLiteral(RECLAIM_EXECUTABLE),
                    QStringList{QStringLiteral("--daemon"), QStringLiteral("--log-format"),
                                QStringLiteral("json"), QStringLiteral("--metrics-address"),
                                QStringLiteral("127.0.0.1:0")} +
                        args);
    if (!m_process.waitForStarted(10000))
        return false;
    m_pid = m_process.processId();
    return true;
}

quint16 DaemonProcess::metricsPort() const
{
    for (const QJsonObject &e : m_events)
        if (e.value(QStringLiteral("event")).toString() == QLatin1String("started"))
            return static_cast<quint16>(e.value(QStringLiteral("metrics"))
                                            .toString()
                                            .section(QLatin1Char(':'), -1)
                                            .toUInt());
    return 0;
}

void DaemonProcess::readStderr()
{
    const QByteArray chunk = m_process.readAllStandardError();
    m_raw += chunk;
    m_pending += chunk;
    qsizetype nl;
    while ((nl = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(nl);
        m_pending.remove(0, nl + 1);
        if (line.isEmpty())
            continue;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        if (error.error == QJsonParseError::NoError && doc.isObject())
            m_events << doc.object();
        else
            m_stray << QString::fromUtf8(line);
    }
}

QList<QJsonObject> DaemonProcess::eventsOf(const QString &event) const
{
    QList<QJsonObject> out;
    for (const QJsonObject &e : m_events)
        if (e.value(QStringLiteral("event")).toString() == event)
            out << e;
    return out;
}

bool DaemonProcess::waitFor(const Predicate &pred, int timeoutMs, int count, qsizetype from)
{
    auto matches = [&] {
        int n = 0;
        for (qsizetype i = from; i < m_events.size(); ++i)
            n += pred(m_events.at(i)) ? 1 : 0;
        return n >= count;
    };
    return QTest::qWaitFor(matches, timeoutMs) || matches();
}

bool DaemonProcess::waitForEvent(const QString &event, int timeoutMs, int count, qsizetype from)
{
    return waitFor(
        [&](const QJsonObject &e) { return e.value(QStringLiteral("event")).toString() == event; },
        timeoutMs, count, from);
}

void DaemonProcess::sendSignal(int signo)
{
    if (m_pid > 0)
        ::kill(static_cast<pid_t>(m_pid), signo);
}

bool DaemonProcess::waitForExit(int timeoutMs)
{
    if (m_process.state() == QProcess::NotRunning)
        return true;
    QSignalSpy finished(&m_process, &QProcess::finished);
    const bool done = finished.wait(timeoutMs) || m_process.state() == QProcess::NotRunning;
    readStderr();
    return done;
}

} // namespace reclaim::test
