#include "pickupbench.h"

#include "fencing/redislock.h"
#include "service/redisadapters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace reclaim::bench {

namespace {

constexpr qint64 kGeneration = 1;

double wallClockMs()
{
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<qsizetype>(std::ceil(p * static_cast<double>(values.size())));
    return values.at(qBound<qsizetype>(0, rank - 1, values.size() - 1));
}

// The scenario's `pickup` process (refapp/bullmq-versions/scenario.js): a Worker and a Queue of
// one release, talking JSON lines.
class PickupProcess final
{
public:
    PickupProcess(const QString &node, const QStringList &args)
    {
        m_p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_p.start(node, args);
    }
    ~PickupProcess()
    {
        m_p.closeWriteChannel();
        if (!m_p.waitForFinished(10000)) {
            m_p.kill();
            m_p.waitForFinished();
        }
    }
    Q_DISABLE_COPY_MOVE(PickupProcess)

    void send(const QByteArray &line) { m_p.write(line + '\n'); }

    // The first line not taken yet whose event is `event` (and id `id`, when given). Lines are
    // kept until taken: the worker may print a job's `active` before the add that made it
    // prints `added`.
    std::optional<QJsonObject> waitFor(const QString &event, const QString &id = {})
    {
        for (;;) {
            while (m_p.canReadLine())
                m_pending << QJsonDocument::fromJson(m_p.readLine()).object();
            for (qsizetype i = 0; i < m_pending.size(); ++i) {
                const QJsonObject &o = m_pending.at(i);
                if (o.value(QStringLiteral("event")).toString() == event &&
                    (id.isEmpty() || o.value(QStringLiteral("id")).toString() == id))
                    return m_pending.takeAt(i);
            }
            if (!m_p.waitForReadyRead(20000))
                return std::nullopt;
        }
    }

private:
    QProcess m_p;
    QList<QJsonObject> m_pending;
};

QJsonObject summary(const QList<double> &ms)
{
    return {{QStringLiteral("p50Ms"), percentile(ms, 0.50)},
            {QStringLiteral("p99Ms"), percentile(ms, 0.99)},
            {QStringLiteral("maxMs"), percentile(ms, 1.0)},
            {QStringLiteral("samples"), static_cast<qint64>(ms.size())}};
}

} // namespace

int runPickupBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const QString versionsDir = args.value(QStringLiteral("versions-dir"));
    if (versionsDir.isEmpty())
        return fail(QStringLiteral("--versions-dir DIR (refapp/bullmq-versions) is required"));
    const QStringList majors =
        args.value(QStringLiteral("versions"), QStringLiteral("4,5,6")).split(QLatin1Char(','));
    const int n = qMax(1, args.number(QStringLiteral("n"), 200));
    // The worker's connection: the same server as the configuration's (its URL, as the
    // sandbox exports it).
    const QString redisUrl =
        args.value(QStringLiteral("redis"), qEnvironmentVariable("RECLAIM_REDIS_URL"));
    if (redisUrl.isEmpty())
        return fail(QStringLiteral("--redis URL (or RECLAIM_REDIS_URL) is required"));
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        return fail(QStringLiteral("node not found on PATH"));

    RedisAdapters redis(*config);
    // The enqueue is fenced on the recovery lock's generation: the bench stands in for a run
    // holding generation 1 (on the benchmark's own sandbox Redis only).
    {
        auto conn = redis.link.connection();
        if (!conn)
            return fail(conn.error().describe());
        auto set = (*conn)->command({QByteArrayLiteral("SET"),
                                     RedisLock::generationKeyFor(config->run.lockKey),
                                     QByteArray::number(kGeneration)});
        if (!set)
            return fail(set.error().describe());
    }

    QJsonArray results;
    for (const QString &major : majors) {
        const QString queue = QStringLiteral("pickup-v%1").arg(major);
        PickupProcess worker(
            node, {versionsDir + QStringLiteral("/scenario.js"), QStringLiteral("--bullmq"),
                   versionsDir + QStringLiteral("/v") + major, QStringLiteral("--redis"), redisUrl,
                   QStringLiteral("--prefix"), QStringLiteral("bull"), QStringLiteral("--queue"),
                   queue, QStringLiteral("pickup")});
        if (!worker.waitFor(QStringLiteral("blocked")))
            return fail(QStringLiteral("bullmq %1.x: the worker never blocked").arg(major));
        QList<double> library, reclaim;
        QString version;
        // Alternating, so both see the same machine load; each job after the worker blocked again.
        for (int i = 0; i < n; ++i) {
            const QString libId = QStringLiteral("lib-%1").arg(i);
            worker.send(QByteArrayLiteral("add ") + libId.toUtf8());
            const auto added = worker.waitFor(QStringLiteral("added"), libId);
            const auto active =
                added ? worker.waitFor(QStringLiteral("active"), libId) : std::nullopt;
            if (!active || !worker.waitFor(QStringLiteral("completed"), libId) ||
                !worker.waitFor(QStringLiteral("blocked")))
                return fail(QStringLiteral("bullmq %1.x: library job %2 was not processed")
                                .arg(major, libId));
            library << active->value(QStringLiteral("at")).toDouble() -
                           added->value(QStringLiteral("t0")).toDouble();

            const QString recId = QStringLiteral("rec-%1").arg(i);
            const double t0 = wallClockMs();
            EnqueueRequest request;
            request.job = JobRef{QStringLiteral("bull"), queue, recId};
            request.name = QStringLiteral("job");
            request.data = QByteArrayLiteral("{}");
            request.timestampMs = static_cast<qint64>(t0);
            request.generation = kGeneration;
            auto r = redis.queue.enqueue(request);
            if (!r || !r->enqueued)
                return fail(QStringLiteral("bullmq %1.x: requeue of %2 failed: %3")
                                .arg(major, recId,
                                     r ? QStringLiteral("not enqueued") : r.error().describe()));
            const auto picked = worker.waitFor(QStringLiteral("active"), recId);
            if (!picked || !worker.waitFor(QStringLiteral("completed"), recId) ||
                !worker.waitFor(QStringLiteral("blocked")))
                return fail(QStringLiteral("bullmq %1.x: requeued job %2 was not processed")
                                .arg(major, recId));
            reclaim << picked->value(QStringLiteral("at")).toDouble() - t0;
        }
        results << QJsonObject{
            {QStringLiteral("bullmq"), major + QStringLiteral(".x")},
            {QStringLiteral("libraryAdd"), summary(library)},
            {QStringLiteral("reclaimRequeue"), summary(reclaim)},
            {QStringLiteral("p99Ratio"),
             percentile(reclaim, 0.99) / qMax(0.001, percentile(library, 0.99))}};
    }
    printJson({{QStringLiteral("measure"), QStringLiteral("pickup")},
               {QStringLiteral("requeuesPerVersion"), n},
               {QStringLiteral("versions"), results}});
    return 0;
}

} // namespace reclaim::bench
