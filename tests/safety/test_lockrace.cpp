// SPEC §4 against the real Redis and PostgreSQL: at most one lock holder, release never deletes
// another holder's token, renewal keeps a long run's lock, and a runner frozen past its TTL
// makes no successful write after it resumes (fenced or lock lost).
#include "fencing/locklease.h"
#include "service/redisadapters.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "worldsnapshot.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QThread>
#include <atomic>
#include <csignal>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QByteArray kLockKey = QByteArrayLiteral("lock:job-recovery");

QList<QVariantList> jobRowsSnapshot(const SandboxEnv &env)
{
    QList<QVariantList> rows;
    for (const char *table : {"SlideJob", "VideoJob", "DocumentJob", "ImageJob", "NarrationJob"})
        rows << sql(env,
                    QStringLiteral("SELECT id, status, \"updatedAt\"::text FROM \"%1\" ORDER BY id")
                        .arg(QLatin1String(table)));
    return rows;
}

QByteArray getLock(const SandboxEnv &env)
{
    auto r = redis(env).command({QByteArrayLiteral("GET"), kLockKey});
    return r ? r->toBytes().value_or(QByteArray()) : QByteArrayLiteral("<error>");
}

// Every key in Redis but the recovery lock's own, with its type and contents.
QMap<QByteArray, QByteArray> queueContents(const SandboxEnv &env)
{
    QMap<QByteArray, QByteArray> all = redisContents(env);
    all.remove(kLockKey);
    all.remove(kLockKey + ":generation");
    return all;
}

qint64 redisPttl(const SandboxEnv &env)
{
    auto r = redis(env).command({QByteArrayLiteral("PTTL"), kLockKey});
    return r ? r->toInteger().value_or(-3) : -3;
}

bool waitForLine(QProcess &p, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!p.canReadLine() && t.elapsed() < timeoutMs && p.state() == QProcess::Running)
        p.waitForReadyRead(200);
    return p.canReadLine();
}

} // namespace

class TestLockRace : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
    }

    void init() { redis(m_env).command({QByteArrayLiteral("DEL"), kLockKey}); }

    void atMostOneOfManyConcurrentAcquirersHoldsTheLock()
    {
        const ReclaimConfig config = sampleConfig(m_env);
        for (int round = 0; round < 10; ++round) {
            redis(m_env).command({QByteArrayLiteral("DEL"), kLockKey});
            constexpr int kRunners = 6;
            std::atomic_int ready{0};
            std::atomic_int acquired{0};
            std::atomic_int errors{0};
            QList<QThread *> threads;
            for (int i = 0; i < kRunners; ++i) {
                threads << QThread::create([&, i] {
                    RedisAdapters r(config.redis, config.run);
                    ++ready;
                    while (ready.load() < kRunners) {
                    }
                    auto a = r.lock.acquire(QStringLiteral("runner-%1").arg(i), 2000, 0);
                    if (!a)
                        ++errors;
                    else if (a->acquired)
                        ++acquired;
                });
                threads.last()->start();
            }
            for (QThread *t : threads) {
                t->wait();
                delete t;
            }
            QCOMPARE(errors.load(), 0);
            QCOMPARE(acquired.load(), 1);
        }
    }

    void releaseNeverDeletesAnotherHoldersToken()
    {
        const ReclaimConfig config = sampleConfig(m_env);
        redis(m_env).command({QByteArrayLiteral("DEL"), kLockKey});
        RedisAdapters a(config.redis, config.run);
        RedisAdapters b(config.redis, config.run);
        auto first = a.lock.acquire(QStringLiteral("token-a"), 300, 0);
        QVERIFY(first && first->acquired);
        QTRY_COMPARE_WITH_TIMEOUT(getLock(m_env), QByteArray(), 5000); // A's TTL ran out
        auto second = b.lock.acquire(QStringLiteral("token-b"), 60000, 0);
        QVERIFY(second && second->acquired);
        QVERIFY(second->generation > first->generation);
        auto released = a.lock.release(QStringLiteral("token-a"));
        QVERIFY(released.hasValue());
        QCOMPARE(*released, false);
        QCOMPARE(getLock(m_env), QByteArrayLiteral("token-b"));
        QCOMPARE(*b.lock.release(QStringLiteral("token-b")), true);
        QCOMPARE(getLock(m_env), QByteArray());
    }

    void renewalKeepsTheLockPastItsTtlAndNoticesATakeover()
    {
        const ReclaimConfig config = sampleConfig(m_env);
        redis(m_env).command({QByteArrayLiteral("DEL"), kLockKey});
        RedisAdapters r(config.redis, config.run);
        LockLease lease(r.lock, 1500);
        auto a = lease.acquire();
        QVERIFY(a && a->acquired);
        // Work that outlasts the TTL four times over, confirming between steps as a run does:
        // the key must still be ours, and its TTL must have been pushed out again and again.
        QElapsedTimer work;
        work.start();
        int refreshed = 0;
        qint64 lastTtl = 1500;
        while (work.elapsed() < 4 * 1500) {
            QVERIFY2(lease.confirm(), qPrintable(lease.lostReason()));
            const qint64 ttl = redisPttl(m_env);
            QVERIFY2(ttl > 0, "the lock expired while the lease was confirmed");
            refreshed += ttl > lastTtl ? 1 : 0;
            lastTtl = ttl;
            QTest::qWait(50); // a step of simulated work
        }
        QCOMPARE(getLock(m_env), lease.token().toUtf8());
        QVERIFY2(refreshed >= 4, qPrintable(QString::number(refreshed)));

        // Someone else took the key (for example after a long freeze): the lease notices at the
        // first confirm that renews.
        redis(m_env).command({QByteArrayLiteral("SET"), kLockKey, QByteArrayLiteral("intruder")});
        QTRY_VERIFY_WITH_TIMEOUT(!lease.confirm(), 5000);
        QVERIFY(lease.lost());
        QVERIFY(!lease.confirm()); // and stays lost
        QCOMPARE(*lease.release(), false);
        QCOMPARE(getLock(m_env), QByteArrayLiteral("intruder"));
    }

    void runnerFrozenPastItsTtlMakesNoWriteAfterResuming()
    {
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 7, 1, false);
        QVERIFY(incident.ready());
        const auto before = jobRowsSnapshot(m_env);

        QProcess a;
        a.setProcessEnvironment(m_env.processEnvironment());
        a.start(QStringLiteral(RACERUNNER), {QStringLiteral("--pause-before-write"),
                                             QStringLiteral("--lock-ttl"), QStringLiteral("2")});
        QVERIFY(a.waitForStarted());
        QVERIFY(waitForLine(a, 30000));
        QCOMPARE(a.readLine().trimmed(), QByteArrayLiteral("PAUSED"));
        const QByteArray tokenA = getLock(m_env);
        QVERIFY(tokenA.startsWith("reclaim;"));
        QCOMPARE(::kill(static_cast<pid_t>(a.processId()), SIGSTOP), 0);

        // Past A's TTL, B takes the lock: a new generation starts (B only observes: no writes,
        // so every row A could touch still matches what A read).
        QTRY_COMPARE_WITH_TIMEOUT(getLock(m_env), QByteArray(), 10000);
        QProcess b;
        b.setProcessEnvironment(m_env.processEnvironment());
        b.start(QStringLiteral(RACERUNNER), {QStringLiteral("--observe")});
        QVERIFY(b.waitForFinished(60000));
        const QByteArray bOut = b.readAllStandardOutput();
        QVERIFY2(bOut.contains("\"outcome\":\"completed\""), bOut.constData());
        // A third runner holds the lock now; A must not delete it on release.
        redis(m_env).command({QByteArrayLiteral("SET"), kLockKey, QByteArrayLiteral("third-holder"),
                              QByteArrayLiteral("PX"), QByteArrayLiteral("60000")});

        QCOMPARE(::kill(static_cast<pid_t>(a.processId()), SIGCONT), 0);
        a.write("go\n");
        QVERIFY(a.waitForFinished(60000));
        const QByteArray out = a.readAllStandardOutput();
        const qsizetype at = out.indexOf("REPORT ");
        QVERIFY2(at >= 0, out.constData());
        const QJsonObject report = QJsonDocument::fromJson(out.mid(at + 7)).object();
        const QJsonArray actions = report.value(QStringLiteral("actions")).toArray();
        QVERIFY(actions.size() >= 5);
        // Actions run in batches of one domain: A was frozen in front of its first batch's row
        // writes, so that batch's writes are all fenced, and every later batch is refused
        // earlier (its lease is gone).
        const QString frozenDomain =
            actions.first().toObject().value(QStringLiteral("domain")).toString();
        int fenced = 0;
        int inFrozenBatch = 0;
        for (const QJsonValue &v : actions) {
            const QJsonObject o = v.toObject();
            const QString result = o.value(QStringLiteral("result")).toString();
            const bool frozen = o.value(QStringLiteral("domain")).toString() == frozenDomain;
            inFrozenBatch += frozen ? 1 : 0;
            QVERIFY2(result == (frozen ? QLatin1String("fenced") : QLatin1String("lock-lost")),
                     qPrintable(QStringLiteral("%1: %2").arg(
                         o.value(QStringLiteral("id")).toString(), result)));
            fenced += result == QLatin1String("fenced") ? 1 : 0;
        }
        QCOMPARE(fenced, inFrozenBatch);
        QVERIFY(inFrozenBatch < actions.size());
        QVERIFY(
            report.value(QStringLiteral("lock")).toObject().value(QStringLiteral("lost")).toBool());
        QCOMPARE(jobRowsSnapshot(m_env), before);
        QCOMPARE(getLock(m_env), QByteArrayLiteral("third-holder"));
        const auto audit =
            sql(m_env, QStringLiteral("SELECT result, domain FROM reclaim.audit WHERE actor_host = "
                                      "'racerunner'"));
        // The batch after the frozen one had started before A froze (its attempts recorded and
        // its enqueues sent while A held the lock: a batch's enqueues go out before the
        // previous batch's rows are written), so its attempts are on record as lock-lost; no
        // later batch left one.
        QString nextDomain;
        int inNextBatch = 0;
        for (const QJsonValue &v : actions) {
            const QString domain = v.toObject().value(QStringLiteral("domain")).toString();
            if (nextDomain.isEmpty() && domain != frozenDomain)
                nextDomain = domain;
            inNextBatch += domain == nextDomain ? 1 : 0;
        }
        QCOMPARE(audit.size(), fenced + inNextBatch);
        for (const QVariantList &row : audit) {
            const QString result = row.at(0).toString();
            const QString domain = row.at(1).toString();
            QVERIFY2((result == QLatin1String("fenced") && domain == frozenDomain) ||
                         (result == QLatin1String("lock-lost") && domain == nextDomain),
                     qPrintable(domain + QLatin1Char(' ') + result));
        }
    }

    // The Redis side is fenced too (#13 item 4): a runner frozen between its lease check and its
    // first enqueue while a newer run takes the lock enqueues nothing after SIGCONT — the
    // script sees a newer generation — and reports the action as fenced.
    void runnerFrozenBeforeItsEnqueueEnqueuesNothingAfterResuming()
    {
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 7, 1, false);
        QVERIFY(incident.ready());

        QProcess a;
        a.setProcessEnvironment(m_env.processEnvironment());
        a.start(QStringLiteral(RACERUNNER), {QStringLiteral("--pause-before-enqueue"),
                                             QStringLiteral("--lock-ttl"), QStringLiteral("2")});
        QVERIFY(a.waitForStarted());
        QVERIFY(waitForLine(a, 30000));
        QCOMPARE(a.readLine().trimmed(), QByteArrayLiteral("PAUSED"));
        QCOMPARE(::kill(static_cast<pid_t>(a.processId()), SIGSTOP), 0);
        const auto before = jobRowsSnapshot(m_env); // what A wrote while it held the lock stays

        QTRY_COMPARE_WITH_TIMEOUT(getLock(m_env), QByteArray(), 10000);
        QProcess b;
        b.setProcessEnvironment(m_env.processEnvironment());
        b.start(QStringLiteral(RACERUNNER), {QStringLiteral("--observe")});
        QVERIFY(b.waitForFinished(60000));
        QVERIFY2(b.readAllStandardOutput().contains("\"outcome\":\"completed\""), "B did not run");
        // Everything in Redis but the lock's own keys, as B left it: A must add nothing to it.
        const auto queueBefore = queueContents(m_env);

        QCOMPARE(::kill(static_cast<pid_t>(a.processId()), SIGCONT), 0);
        a.write("go\n");
        QVERIFY(a.waitForFinished(60000));
        const QByteArray out = a.readAllStandardOutput();
        const qsizetype at = out.indexOf("REPORT ");
        QVERIFY2(at >= 0, out.constData());
        const QJsonObject report = QJsonDocument::fromJson(out.mid(at + 7)).object();
        // Actions run in batches of one domain: A was frozen in front of the enqueues of the
        // batch with the first requeue, so that batch's requeues are fenced by the script
        // (nothing enqueued). Every FAIL of it, and every action of a later batch, is refused
        // as lock-lost: a batch's rows are written after the next batch's enqueues are sent,
        // and by then the lease's TTL had run out (the batch before it, written after the
        // freeze, is refused the same way; this test looks from the frozen batch on).
        const QJsonArray actions = report.value(QStringLiteral("actions")).toArray();
        QString frozenDomain;
        for (const QJsonValue &v : actions)
            if (frozenDomain.isEmpty() &&
                v.toObject().value(QStringLiteral("kind")).toString() == QLatin1String("REQUEUE"))
                frozenDomain = v.toObject().value(QStringLiteral("domain")).toString();
        QVERIFY(!frozenDomain.isEmpty());
        int fenced = 0;
        int inFrozenBatch = 0;
        bool frozenYet = false;
        for (const QJsonValue &v : actions) {
            const QJsonObject o = v.toObject();
            const bool frozen = o.value(QStringLiteral("domain")).toString() == frozenDomain;
            frozenYet = frozenYet || frozen;
            if (!frozenYet)
                continue;
            const QString result = o.value(QStringLiteral("result")).toString();
            const bool requeue =
                o.value(QStringLiteral("kind")).toString() == QLatin1String("REQUEUE");
            QVERIFY2(result ==
                         (frozen && requeue ? QLatin1String("fenced") : QLatin1String("lock-lost")),
                     qPrintable(QStringLiteral("%1: %2").arg(
                         o.value(QStringLiteral("id")).toString(), result)));
            inFrozenBatch += frozen && requeue ? 1 : 0;
            if (result == QLatin1String("fenced")) {
                ++fenced;
                if (o.value(QStringLiteral("kind")).toString() == QLatin1String("REQUEUE"))
                    QVERIFY2(o.value(QStringLiteral("resultDetail"))
                                 .toString()
                                 .contains(QLatin1String("nothing enqueued")),
                             qPrintable(o.value(QStringLiteral("resultDetail")).toString()));
            }
        }
        QCOMPARE(fenced, inFrozenBatch); // the requeues it was frozen in front of
        const QStringList changed = differences(queueBefore, queueContents(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        QCOMPARE(jobRowsSnapshot(m_env), before);
        // Every attempt A recorded says what came of it: a refused one is "fenced", none is left
        // "started" as if it might still be under way.
        const auto audit = sql(m_env, QStringLiteral("SELECT result, count(*) FROM reclaim.audit "
                                                     "WHERE actor_host = 'racerunner' GROUP BY "
                                                     "result ORDER BY result"));
        QStringList results;
        for (const QVariantList &row : audit)
            results << row.at(0).toString() + QLatin1Char('=') + row.at(1).toString();
        QVERIFY2(!results.join(QLatin1Char(' ')).contains(QLatin1String("started")),
                 qPrintable(results.join(QLatin1Char(' '))));
        QVERIFY2(results.contains(QStringLiteral("fenced=%1").arg(fenced)),
                 qPrintable(results.join(QLatin1Char(' '))));
    }

    // A writer frozen (SIGSTOP) inside its write transaction holds the fence FOR SHARE; the
    // server ends its session after idle_in_transaction_session_timeout, and the next lock
    // holder waits that long for the fence instead of failing its start (exit 5).
    void aWriterFrozenInsideItsTransactionDoesNotFailTheNextRun()
    {
        resetSandbox(m_env);
        migrate(m_env);
        QProcess init; // creates Reclaim's schema, as any earlier run did
        init.setProcessEnvironment(m_env.processEnvironment());
        init.start(QStringLiteral(RACERUNNER), {QStringLiteral("--observe")});
        QVERIFY(init.waitForFinished(60000));
        redis(m_env).command({QByteArrayLiteral("DEL"), kLockKey});

        QProcess frozen;
        frozen.setProcessEnvironment(m_env.processEnvironment());
        frozen.start(QStringLiteral(RACERUNNER),
                     {QStringLiteral("--hold-fence"), QStringLiteral("--pg-timeout-ms"),
                      QStringLiteral("1500")});
        QVERIFY(frozen.waitForStarted());
        QVERIFY(waitForLine(frozen, 30000));
        QCOMPARE(frozen.readLine().trimmed(), QByteArrayLiteral("HELD"));
        QCOMPARE(::kill(static_cast<pid_t>(frozen.processId()), SIGSTOP), 0);

        QElapsedTimer took;
        took.start();
        QProcess next;
        next.setProcessEnvironment(m_env.processEnvironment());
        next.start(QStringLiteral(RACERUNNER),
                   {QStringLiteral("--observe"), QStringLiteral("--pg-timeout-ms"),
                    QStringLiteral("1500")});
        QVERIFY(next.waitForFinished(60000));
        const QByteArray out = next.readAllStandardOutput();
        QVERIFY2(out.contains("\"outcome\":\"completed\""), out.constData());
        // Bounded: the frozen session's idle timeout plus the next run's own wait, not forever.
        QVERIFY2(took.elapsed() < 20000, qPrintable(QString::number(took.elapsed())));

        // The frozen writer's session is gone: after SIGCONT it cannot write with the old hold.
        QCOMPARE(::kill(static_cast<pid_t>(frozen.processId()), SIGCONT), 0);
        frozen.write("go\n");
        QVERIFY(frozen.waitForFinished(30000));
        const QByteArray after = frozen.readAllStandardOutput();
        QVERIFY2(after.contains("AFTER error ") && !after.trimmed().endsWith(':'),
                 after.constData());
    }
};

QTEST_GUILESS_MAIN(TestLockRace)
#include "test_lockrace.moc"
