// Two daemons on one sandbox: their first runs are made to collide on the lock, and over the
// following ticks no action is ever applied twice, every action the incident needs is applied
// once, and every skipped run names the other daemon as the lock holder.
#include "daemonprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace reclaim;
using namespace reclaim::test;

namespace {

QString writeConfig(const QTemporaryDir &dir)
{
    QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    if (!sample.open(QIODevice::ReadOnly))
        qFatal("no sample config");
    QJsonObject config = QJsonDocument::fromJson(sample.readAll()).object();
    QJsonObject run = config.value(QStringLiteral("run")).toObject();
    // Wait out the write pause below rather than call Redis down.
    run.insert(QStringLiteral("redisTimeoutMs"), 30000);
    config.insert(QStringLiteral("run"), run);
    const QString path = dir.filePath(QStringLiteral("reclaim.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        qFatal("cannot write the config");
    out.write(QJsonDocument(config).toJson());
    return path;
}

bool isRun(const QJsonObject &e)
{
    return e.value(QStringLiteral("event")).toString() == QLatin1String("run");
}

qint64 holderPid(const QString &token)
{
    static const QRegularExpression pid(QStringLiteral("(?:^|;)pid=(\\d+)(?:;|$)"));
    const auto m = pid.match(token);
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

} // namespace

class TestTwoDaemons : public QObject
{
    Q_OBJECT
private slots:
    void oneRunPerTickDoesTheWork();
};

void TestTwoDaemons::oneRunPerTickDoesTheWork()
{
    const SandboxEnv env = SandboxEnv::load();
    if (env.pgUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    resetSandbox(env);
    migrate(env);
    SeededIncident incident(env, 21, 1, false);
    QVERIFY(incident.ready());
    QSet<QString> expected;
    for (const QJsonValue &v : incident.rows())
        if (!v.toObject().value(QStringLiteral("expectedAction")).isNull())
            expected.insert(v.toObject().value(QStringLiteral("domain")).toString() +
                            QLatin1Char('/') + v.toObject().value(QStringLiteral("id")).toString());
    QVERIFY(expected.size() >= 5);

    QTemporaryDir dir;
    const QString config = writeConfig(dir);
    QProcessEnvironment extra;
    extra.insert(QStringLiteral("RECLAIM_PG_URL"), env.pgUrl);
    extra.insert(QStringLiteral("RECLAIM_REDIS_URL"), env.redisUrl);

    // Both first runs wait on a write pause, so both are asking for the lock when it lifts.
    RedisWritePause pause(env);
    QVERIFY(pause.active());
    DaemonProcess a(daemonEnvironment(extra));
    DaemonProcess b(daemonEnvironment(extra));
    const QStringList args{QStringLiteral("--config"), config, QStringLiteral("--interval"),
                           QStringLiteral("2")};
    QVERIFY(a.start(args));
    QVERIFY(b.start(args));
    QVERIFY2(QTest::qWaitFor([&] { return pause.blockedClients() >= 2; }, 20000),
             qPrintable(QString::fromUtf8(a.rawStderr() + b.rawStderr())));
    pause.release();

    // At least three finished runs each.
    QVERIFY2(a.waitFor(isRun, 60000, 3), a.rawStderr().right(3000).constData());
    QVERIFY2(b.waitFor(isRun, 60000, 3), b.rawStderr().right(3000).constData());
    QVERIFY(a.metricsPort() != b.metricsPort());

    // The first runs overlapped: exactly one took the lock, the other saw it held by the first.
    const QJsonObject firstA = a.eventsOf(QStringLiteral("run")).first();
    const QJsonObject firstB = b.eventsOf(QStringLiteral("run")).first();
    const QStringList firstOutcomes{firstA.value(QStringLiteral("outcome")).toString(),
                                    firstB.value(QStringLiteral("outcome")).toString()};
    QVERIFY2(firstOutcomes.contains(QStringLiteral("completed")) &&
                 firstOutcomes.contains(QStringLiteral("skipped-lock-held")),
             qPrintable(firstOutcomes.join(QLatin1Char(',')) + QLatin1Char(' ') +
                        firstA.value(QStringLiteral("detail")).toString() + QLatin1Char(' ') +
                        firstB.value(QStringLiteral("detail")).toString()));

    QSet<QString> applied;
    int skipped = 0;
    for (DaemonProcess *d : {&a, &b}) {
        const qint64 other = d == &a ? b.pid() : a.pid();
        for (const QJsonObject &run : d->eventsOf(QStringLiteral("run"))) {
            const QString outcome = run.value(QStringLiteral("outcome")).toString();
            QVERIFY2(outcome == QLatin1String("completed") ||
                         outcome == QLatin1String("skipped-lock-held"),
                     qPrintable(outcome));
            if (outcome == QLatin1String("skipped-lock-held")) {
                ++skipped;
                // Every skipped run names the holder, and the holder is the other daemon.
                const QString holder = run.value(QStringLiteral("holder")).toString();
                QCOMPARE(holderPid(holder), other);
                QVERIFY(run.value(QStringLiteral("msg")).toString().contains(holder));
            }
        }
        for (const QJsonObject &action : d->eventsOf(QStringLiteral("action"))) {
            if (action.value(QStringLiteral("result")).toString() != QLatin1String("applied"))
                continue;
            const QString id = action.value(QStringLiteral("domain")).toString() +
                               QLatin1Char('/') + action.value(QStringLiteral("jobId")).toString();
            QVERIFY2(!applied.contains(id), qPrintable(QStringLiteral("applied twice: ") + id));
            applied.insert(id);
        }
    }
    QVERIFY(skipped >= 1);
    QCOMPARE(applied, expected);

    for (DaemonProcess *d : {&a, &b})
        d->sendSignal(SIGTERM);
    for (DaemonProcess *d : {&a, &b}) {
        QVERIFY(d->waitForExit(10000));
        QCOMPARE(d->process().exitCode(), 0);
        QVERIFY(d->strayLines().isEmpty());
    }
    RedisConnection admin = redis(env);
    auto exists =
        admin.command({QByteArrayLiteral("EXISTS"), QByteArrayLiteral("lock:job-recovery")});
    QVERIFY(exists);
    QCOMPARE(exists->toInteger().value_or(-1), 0);
}

QTEST_GUILESS_MAIN(TestTwoDaemons)
#include "test_twodaemons.moc"
