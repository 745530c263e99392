// A recovery runner in its own process, for the lock race tests: it can stop just before its
// first database write or its first enqueue (each after confirming its lease) and wait for "go"
// on stdin, so the test can freeze it there with SIGSTOP past its TTL while another runner
// takes over.
//   racerunner [--pause-before-write | --pause-before-enqueue] [--observe] [--lock-ttl S]
//   (URLs from RECLAIM_*_URL)
#include "config/configloader.h"
#include "faultports.h"
#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <cstdio>
#include <iostream>
#include <string>

using namespace reclaim;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto config =
        ConfigLoader::loadFile(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    if (!config) {
        std::fprintf(stderr, "racerunner: %s\n", qPrintable(config.error().toString()));
        return 2;
    }
    const qsizetype ttlAt = args.indexOf(QStringLiteral("--lock-ttl"));
    if (ttlAt > 0)
        config->run.lockTtl = std::chrono::seconds(args.value(ttlAt + 1).toInt());
    const QString pauseAt =
        args.contains(QStringLiteral("--pause-before-write"))     ? QStringLiteral("write")
        : args.contains(QStringLiteral("--pause-before-enqueue")) ? QStringLiteral("enqueue")
                                                                  : QString();
    const bool observe = args.contains(QStringLiteral("--observe"));

    auto store = PgJobStore::open(*config, false);
    if (!store) {
        std::fprintf(stderr, "racerunner: %s\n", qPrintable(store.error().message));
        return 5;
    }
    RedisAdapters redis(config->redis, config->run);
    bool paused = false;
    auto hook = [&](const QString &boundary) {
        if (!pauseAt.isEmpty() && !paused && boundary == pauseAt) {
            paused = true;
            std::printf("PAUSED\n");
            std::fflush(stdout);
            std::string line;
            std::getline(std::cin, line); // the test SIGSTOPs us here, then SIGCONTs and says "go"
        }
    };
    test::HookedStore hooked(**store, hook);
    test::HookedQueue queue(redis.queue, redis.queue, redis.lock, hook);
    RecoveryRun run(*config, &hooked, {}, queue, queue, queue);
    RunRequest request;
    request.trigger = QStringLiteral("race");
    request.executeActions = !observe;
    request.actor =
        Actor{QStringLiteral("test"), QStringLiteral("racerunner"), QStringLiteral("test"), {}};
    const RunReport report = run.run(request);
    std::printf("REPORT %s\n",
                QJsonDocument(report.toJson()).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    return 0;
}
