#include "support/refapp.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

namespace reclaim::test {

namespace {
QString refappDir()
{
    return QStringLiteral(RECLAIM_SOURCE_DIR "/refapp");
}
} // namespace

QByteArray runNode(const SandboxEnv &env, const QString &script, const QStringList &args,
                   int timeoutMs)
{
    QProcess p;
    p.setProcessEnvironment(env.processEnvironment());
    p.setWorkingDirectory(QStringLiteral(RECLAIM_SOURCE_DIR));
    p.start(QStringLiteral(RECLAIM_NODE),
            QStringList{refappDir() + QLatin1Char('/') + script} + args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        QTest::qFail(qPrintable(QStringLiteral("node %1 timed out").arg(script)), __FILE__,
                     __LINE__);
        return {};
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        QTest::qFail(qPrintable(QStringLiteral("node %1 failed (%2): %3")
                                    .arg(script)
                                    .arg(p.exitCode())
                                    .arg(QString::fromUtf8(p.readAllStandardError()))),
                     __FILE__, __LINE__);
    return p.readAllStandardOutput();
}

void migrate(const SandboxEnv &env)
{
    runNode(env, QStringLiteral("migrate.js"), {});
}

SeededIncident::SeededIncident(const SandboxEnv &env, int seed, int scale, bool hold,
                               const QHash<QString, QString> &overrides)
    : m_process(std::make_unique<QProcess>())
{
    const QString manifestPath =
        QStringLiteral("%1/manifest-%2-%3.json").arg(env.dir).arg(seed).arg(scale);
    QStringList args{refappDir() + QStringLiteral("/seed.js"),
                     QStringLiteral("--seed"),
                     QString::number(seed),
                     QStringLiteral("--scale"),
                     QString::number(scale),
                     QStringLiteral("--manifest"),
                     manifestPath,
                     QStringLiteral("--quiet")};
    if (hold)
        args << QStringLiteral("--hold");
    QProcessEnvironment environment = env.processEnvironment();
    for (auto it = overrides.cbegin(); it != overrides.cend(); ++it)
        environment.insert(it.key(), it.value());
    m_process->setProcessEnvironment(environment);
    m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_process->start(QStringLiteral(RECLAIM_NODE), args);
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 180000) {
        if (!m_process->waitForReadyRead(500) && m_process->state() == QProcess::NotRunning)
            break;
        out += m_process->readAllStandardOutput();
        if (out.contains("SEED READY")) {
            m_ready = true;
            break;
        }
    }
    if (!m_ready)
        return;
    QFile f(manifestPath);
    if (f.open(QIODevice::ReadOnly))
        m_manifest = QJsonDocument::fromJson(f.readAll()).object();
    m_ready = !m_manifest.isEmpty();
}

SeededIncident::~SeededIncident()
{
    stop();
}

void SeededIncident::stop()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) {
            m_process->kill();
            m_process->waitForFinished();
        }
    }
}

QList<QJsonObject> SeededIncident::rowsOfKind(const QString &kind) const
{
    QList<QJsonObject> out;
    for (const QJsonValue &v : rows())
        if (v.toObject().value(QStringLiteral("kind")).toString() == kind)
            out << v.toObject();
    return out;
}

QList<QJsonObject> runWorker(const SandboxEnv &env, const QString &queue, int count, int timeoutMs,
                             const QString &table)
{
    QStringList args{QStringLiteral("--queue"),      queue,
                     QStringLiteral("--count"),      QString::number(count),
                     QStringLiteral("--timeout-ms"), QString::number(timeoutMs)};
    if (!table.isEmpty())
        args << QStringLiteral("--pg") << env.pgUrl << QStringLiteral("--table") << table;
    const QByteArray out = runNode(env, QStringLiteral("worker.js"), args, timeoutMs + 30000);
    QList<QJsonObject> events;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject())
            events << doc.object();
    }
    return events;
}

} // namespace reclaim::test
