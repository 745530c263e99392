// The recovery lock lease: tokens that name their holder, acquisition with a fencing generation,
// renewal before expiry, and a release that deletes only our own token.
#include "domain/locktoken.h"
#include "fencing/locklease.h"
#include "support/fakes.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

class TestLockLease : public QObject
{
    Q_OBJECT
private slots:
    void tokenNamesItsHolderAndIsUnique()
    {
        const QString a = makeLockToken();
        const QString b = makeLockToken();
        QVERIFY(a != b);
        const LockHolder h = parseLockToken(a);
        QVERIFY(h.parsed);
        QVERIFY(!h.host.isEmpty());
        QCOMPARE(h.pid, QCoreApplication::applicationPid());
        QVERIFY(!h.since.isEmpty());
    }

    void foreignTokenIsNotParsed_data()
    {
        QTest::addColumn<QString>("token");
        QTest::newRow("empty") << QString();
        QTest::newRow("another tool") << QStringLiteral("celery-beat:host1");
        QTest::newRow("no host") << QStringLiteral("reclaim;pid=12");
    }
    void foreignTokenIsNotParsed()
    {
        QFETCH(QString, token);
        QVERIFY(!parseLockToken(token).parsed);
    }

    void acquireTakesANewGeneration()
    {
        CallLog log;
        FakeQueue queue(&log);
        queue.generation = 41;
        LockLease lease(queue, 60000);
        auto attempt = lease.acquire();
        QVERIFY(attempt.hasValue());
        QVERIFY(attempt->acquired);
        QCOMPARE(lease.generation(), 42);
        QCOMPARE(queue.lockHolder, lease.token());
        QVERIFY(lease.held());
        QVERIFY(lease.confirm());
    }

    void heldBySomeoneElse()
    {
        CallLog log;
        FakeQueue queue(&log);
        queue.lockHolder = QStringLiteral("reclaim;host=other;pid=1;since=x;nonce=1");
        queue.lockTtlMs = 12000;
        queue.generation = 7;
        LockLease lease(queue, 60000);
        auto attempt = lease.acquire();
        QVERIFY(attempt.hasValue());
        QVERIFY(!attempt->acquired);
        QCOMPARE(attempt->holder, queue.lockHolder);
        QCOMPARE(attempt->holderTtlMs, 12000);
        QVERIFY(!lease.held());
        // Not ours: no write may be confirmed, and releasing must leave the holder alone.
        QVERIFY(!lease.confirm());
        auto released = lease.release();
        QVERIFY(released.hasValue());
        QVERIFY(!*released);
        QCOMPARE(queue.lockHolder, QStringLiteral("reclaim;host=other;pid=1;since=x;nonce=1"));
        QVERIFY(!log.contains(QStringLiteral("lock:release")));
    }

    void unreachableLockIsAnError()
    {
        CallLog log;
        FakeQueue queue(&log);
        queue.lockError = RedisError{RedisError::Kind::Connect, QStringLiteral("refused")};
        LockLease lease(queue, 60000);
        auto attempt = lease.acquire();
        QVERIFY(!attempt.hasValue());
        QCOMPARE(attempt.error().kind, RedisError::Kind::Connect);
        QVERIFY(!lease.held());
    }

    void releaseDeletesOurOwnToken()
    {
        CallLog log;
        FakeQueue queue(&log);
        LockLease lease(queue, 60000);
        QVERIFY(lease.acquire()->acquired);
        auto released = lease.release();
        QVERIFY(released.hasValue());
        QVERIFY(*released);
        QVERIFY(queue.lockHolder.isEmpty());
    }

    // A run that outlived its TTL: the lock expired and the next runner took it. Our release
    // must not delete the next holder's lock.
    void releaseLeavesTheNextHoldersLock()
    {
        CallLog log;
        FakeQueue queue(&log);
        LockLease lease(queue, 60000);
        QVERIFY(lease.acquire()->acquired);
        const QString next = QStringLiteral("reclaim;host=next;pid=2;since=y;nonce=2");
        queue.lockHolder = next; // expired and re-taken behind our back
        auto released = lease.release();
        QVERIFY(released.hasValue());
        QVERIFY(!*released);
        QCOMPARE(queue.lockHolder, next);
    }

    void releaseTwiceIsHarmless()
    {
        CallLog log;
        FakeQueue queue(&log);
        LockLease lease(queue, 60000);
        QVERIFY(lease.acquire()->acquired);
        QVERIFY(*lease.release());
        queue.lockHolder = QStringLiteral("someone-else");
        auto again = lease.release();
        QVERIFY(again.hasValue());
        QVERIFY(!*again);
        QCOMPARE(queue.lockHolder, QStringLiteral("someone-else"));
        QCOMPARE(log.count(QStringLiteral("lock:release")), 1);
    }

    // Renewal happens once a third of the TTL has passed, not on every confirm; time is stepped
    // by hand (an injected clock), so the boundaries are exact and nothing sleeps.
    void renewsAfterAThirdOfTheTtl()
    {
        CallLog log;
        FakeQueue queue(&log);
        qint64 now = 1000;
        LockLease lease(queue, 600, [&] { return now; });
        QVERIFY(lease.acquire()->acquired);
        now += 199;
        QVERIFY(lease.confirm());
        QVERIFY(!log.contains(QStringLiteral("lock:renew")));
        now += 1; // 200 ms: a third of the TTL
        QVERIFY(lease.confirm());
        QCOMPARE(log.count(QStringLiteral("lock:renew")), 1);
        now += 199; // counted from the renewal, not from the acquire
        QVERIFY(lease.confirm());
        QCOMPARE(log.count(QStringLiteral("lock:renew")), 1);
        QVERIFY(lease.held());
        QVERIFY(!lease.lost());
    }

    // Past the TTL without a renewal the lock may already be someone else's: lost, no renew.
    void aLeaseNotConfirmedWithinItsTtlIsLost()
    {
        CallLog log;
        FakeQueue queue(&log);
        qint64 now = 0;
        LockLease lease(queue, 600, [&] { return now; });
        QVERIFY(lease.acquire()->acquired);
        now = 599;
        QVERIFY(lease.confirm()); // renews: the server still had it
        now = 599 + 600;
        QVERIFY(!lease.confirm());
        QVERIFY(lease.lost());
        QCOMPARE(log.count(QStringLiteral("lock:renew")), 1);
        QVERIFY2(lease.lostReason().contains(QStringLiteral("ran out")),
                 qPrintable(lease.lostReason()));
    }

    // For a write made while the connection has other commands in flight: never a call to
    // Redis, and a TTL run out since the last confirmation is a lost lease.
    void confirmingWithoutRenewingNeverCallsRedis()
    {
        CallLog log;
        FakeQueue queue(&log);
        qint64 now = 0;
        LockLease lease(queue, 600, [&] { return now; });
        QVERIFY(lease.acquire()->acquired);
        now = 599; // past a third of the TTL: confirm() would renew here
        QVERIFY(lease.confirmWithoutRenewing());
        QCOMPARE(log.count(QStringLiteral("lock:renew")), 0);
        now = 600;
        QVERIFY(!lease.confirmWithoutRenewing());
        QVERIFY(lease.lost());
        QVERIFY(!lease.confirm()); // and stays lost, still without a call
        QCOMPARE(log.count(QStringLiteral("lock:renew")), 0);
        QVERIFY2(lease.lostReason().contains(QStringLiteral("ran out")),
                 qPrintable(lease.lostReason()));
    }

    void tokenChangedMeansLost()
    {
        CallLog log;
        FakeQueue queue(&log);
        qint64 now = 0;
        LockLease lease(queue, 600, [&] { return now; });
        QVERIFY(lease.acquire()->acquired);
        queue.lockHolder = QStringLiteral("someone-else");
        now = 300;
        QVERIFY(!lease.confirm());
        QVERIFY(lease.lost());
        QVERIFY2(lease.lostReason().contains(QStringLiteral("no longer holds our token")),
                 qPrintable(lease.lostReason()));
        // Once lost, it stays lost even if the token came back.
        queue.lockHolder = lease.token();
        QVERIFY(!lease.confirm());
        QVERIFY(!lease.held());
    }

    void renewalErrorMeansLost()
    {
        CallLog log;
        FakeQueue queue(&log);
        qint64 now = 0;
        LockLease lease(queue, 600, [&] { return now; });
        QVERIFY(lease.acquire()->acquired);
        queue.lockError = RedisError{RedisError::Kind::Timeout, QStringLiteral("slow")};
        now = 300;
        QVERIFY(!lease.confirm());
        QVERIFY(lease.lost());
        QVERIFY2(lease.lostReason().contains(QStringLiteral("renewing the lock failed")),
                 qPrintable(lease.lostReason()));
    }

    void ttlRunOutWithoutRenewalMeansLost()
    {
        CallLog log;
        FakeQueue queue(&log);
        LockLease lease(queue, 0); // already expired by the first confirm
        QVERIFY(lease.acquire()->acquired);
        QVERIFY(!lease.confirm());
        QVERIFY(lease.lost());
        QVERIFY(!log.contains(QStringLiteral("lock:renew")));
        QVERIFY2(lease.lostReason().contains(QStringLiteral("ran out")),
                 qPrintable(lease.lostReason()));
    }
};

QTEST_GUILESS_MAIN(TestLockLease)
#include "test_locklease.moc"
