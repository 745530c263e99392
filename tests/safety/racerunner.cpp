// A recovery runner in its own process, for the lock race tests: it can stop just before its
// first database write or its first enqueue (each after confirming its lease) and wait for "go"
// on stdin, so the test can freeze it there with SIGSTOP past its TTL while another runner
// takes over.
// With --hold-fence it is a writer frozen inside its write transaction instead: on Reclaim's own
// session it locks the fence FOR SHARE as a write does, says HELD and waits for a line on stdin
// (the test SIGSTOPs it there), then tries one more statement and says AFTER ok|error <text>.
//   racerunner [--pause-before-write | --pause-before-enqueue] [--observe] [--hold-fence]
//              [--lock-ttl S] [--pg-timeout-ms N]
//   (URLs from RECLAIM_*_URL)
#include "config/configloader.h"
#include "faultports.h"
#include "fencing/pgfence.h"
#include "postgres/pgconnection.h"
#include "postgres/pgjobstore.h"
#include "recovery/recoveryrun.h"
#include "service/redisadapters.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
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
    const qsizetype pgTimeoutAt = args.indexOf(QStringLiteral("--pg-timeout-ms"));
    if (pgTimeoutAt > 0)
        config->run.postgresTimeout =
            std::chrono::milliseconds(args.value(pgTimeoutAt + 1).toInt());
    if (args.contains(QStringLiteral("--hold-fence"))) {
        auto conn = PgConnection::open(*config);
        if (!conn) {
            std::fprintf(stderr, "racerunner: %s\n", qPrintable(conn.error().message));
            return 5;
        }
        QSqlDatabase db = (*conn)->database();
        QSqlQuery q(db);
        if (!db.transaction() || !pgfence::holdForWrite(q, (*conn)->lockKey())) {
            std::fprintf(stderr, "racerunner: cannot hold the fence\n");
            return 5;
        }
        std::printf("HELD\n");
        std::fflush(stdout);
        std::string line;
        std::getline(std::cin, line);
        const bool ok = q.exec(QStringLiteral("SELECT 1"));
        std::printf(
            "AFTER %s %s\n", ok ? "ok" : "error",
            qPrintable(ok ? QString() : (*conn)->failure(QStringLiteral("after"), q).message));
        std::fflush(stdout);
        return 0;
    }
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
    RedisAdapters redis(*config);
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
