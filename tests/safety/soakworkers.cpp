#include "soakworkers.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>

namespace reclaim::test {

SoakWorkers::~SoakWorkers()
{
    for (Worker &w : m_workers) {
        if (w.process->state() == QProcess::NotRunning)
            continue;
        w.process->kill();
        w.process->waitForFinished(5000);
    }
}

void SoakWorkers::spawn(const QString &queue)
{
    const bool video = queue == QLatin1String("video-generation");
    Worker w;
    w.queue = queue;
    w.process = std::make_unique<QProcess>();
    w.process->setProcessEnvironment(m_env.processEnvironment());
    w.process->setProcessChannelMode(QProcess::SeparateChannels);
    w.process->setStandardErrorFile(QProcess::nullDevice());
    w.process->start(QStringLiteral(RECLAIM_NODE),
                     {QStringLiteral(RECLAIM_SOURCE_DIR "/refapp/soak.js"), QStringLiteral("work"),
                      QStringLiteral("--queue"), queue, QStringLiteral("--table"),
                      video ? QStringLiteral("VideoJob") : QStringLiteral("ImageJob"),
                      QStringLiteral("--parent-table"),
                      video ? QStringLiteral("Video") : QStringLiteral("Image"),
                      QStringLiteral("--parent-key"),
                      video ? QStringLiteral("videoId") : QStringLiteral("imageId"),
                      QStringLiteral("--seed"), QString::number(m_seed)});
    w.process->waitForStarted(10000);
    m_workers.push_back(std::move(w));
}

void SoakWorkers::killOne(QRandomGenerator &rng)
{
    QList<size_t> alive;
    for (size_t i = 0; i < m_workers.size(); ++i)
        if (m_workers.at(i).process->state() == QProcess::Running)
            alive << i;
    if (alive.isEmpty())
        return;
    Worker &w = m_workers[alive.at(rng.bounded(static_cast<int>(alive.size())))];
    poll();
    const qint64 pid = w.process->processId();
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    m_killedAt.insert(pid, QDateTime::currentMSecsSinceEpoch());
    w.process->waitForFinished(5000);
    const QString queue = w.queue;
    spawn(queue);
}

void SoakWorkers::poll()
{
    for (Worker &w : m_workers) {
        w.pending += w.process->readAllStandardOutput();
        qsizetype nl;
        while ((nl = w.pending.indexOf('\n')) >= 0) {
            const QJsonObject o = QJsonDocument::fromJson(w.pending.left(nl)).object();
            w.pending.remove(0, nl + 1);
            if (o.isEmpty())
                continue;
            m_events.append(WorkerEvent{o.value(QStringLiteral("event")).toString(),
                                        o.value(QStringLiteral("id")).toString(),
                                        o.value(QStringLiteral("pid")).toInteger(),
                                        o.value(QStringLiteral("at")).toInteger()});
        }
    }
}

} // namespace reclaim::test
