// The recovery lock gives back a token a failed release or an unanswered acquire may have left,
// before it tries again (fencing/leftlockreleaser.h); never a token another runner holds by then.
// Over a scripted lock; the same against a paused redis-server is in tests/safety/test_leftlock.
#include "fencing/leftlockreleaser.h"

#include <QTest>

using namespace reclaim;

namespace {

// One lock key: SET NX semantics, compare-and-delete release. Each call can be scripted to fail
// before it reaches the key ("not sent") or after it was applied ("answer lost").
class ScriptedLock final : public RecoveryLock
{
public:
    enum class Fault
    {
        None,
        NotSent,
        AnswerLost
    };

    QString holder;
    Fault nextFault = Fault::None;
    QStringList calls; // "acquire t1", "release t1", ...

    Expected<LockAttempt, RedisError> acquire(const QString &token, qint64, qint64) override
    {
        calls << QStringLiteral("acquire ") + token;
        const Fault f = take();
        if (f == Fault::NotSent)
            return unexpected(RedisError{RedisError::Kind::Connect, QStringLiteral("refused")});
        LockAttempt a;
        a.acquired = holder.isEmpty();
        if (a.acquired)
            holder = token;
        a.holder = holder;
        if (f == Fault::AnswerLost)
            return unexpected(RedisError{RedisError::Kind::Unanswered, QStringLiteral("lost")});
        return a;
    }
    Expected<bool, RedisError> renew(const QString &token, qint64) override
    {
        return holder == token;
    }
    Expected<bool, RedisError> release(const QString &token) override
    {
        calls << QStringLiteral("release ") + token;
        const Fault f = take();
        if (f == Fault::NotSent)
            return unexpected(RedisError{RedisError::Kind::Timeout, QStringLiteral("paused")});
        const bool ours = holder == token;
        if (ours)
            holder.clear();
        if (f == Fault::AnswerLost)
            return unexpected(RedisError{RedisError::Kind::Unanswered, QStringLiteral("lost")});
        return ours;
    }
    Expected<LockAttempt, RedisError> peek() override
    {
        LockAttempt a;
        a.holder = holder;
        return a;
    }

private:
    Fault take() { return std::exchange(nextFault, Fault::None); }
};

// "acquired", "held" or "error: ...": what an acquire came to, without dereferencing an error.
QString acquireOf(RecoveryLock &lock, const QString &token)
{
    const auto a = lock.acquire(token, 1000, 0);
    if (!a)
        return QStringLiteral("error: ") + a.error().message;
    return a->acquired ? QStringLiteral("acquired") : QStringLiteral("held");
}

} // namespace

class TestLeftLockReleaser : public QObject
{
    Q_OBJECT
private slots:
    // A release that never reached the server leaves our lock; the next acquire gives it back
    // first and gets the lock, instead of finding itself "held" until the TTL.
    void aFailedReleaseIsGivenBackBeforeTheNextAcquire()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        QCOMPARE(acquireOf(lock, QStringLiteral("t1")), QStringLiteral("acquired"));
        redis.nextFault = ScriptedLock::Fault::NotSent;
        QVERIFY(!lock.release(QStringLiteral("t1")));
        QCOMPARE(redis.holder, QStringLiteral("t1"));
        QCOMPARE(lock.leftTokens(), QStringList{QStringLiteral("t1")});

        redis.calls.clear();
        QCOMPARE(acquireOf(lock, QStringLiteral("t2")), QStringLiteral("acquired"));
        QCOMPARE(redis.calls,
                 (QStringList{QStringLiteral("release t1"), QStringLiteral("acquire t2")}));
        QVERIFY(lock.leftTokens().isEmpty());
    }

    // An acquire whose answer was lost may have taken the lock all the same.
    void anUnansweredAcquireIsGivenBackToo()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        redis.nextFault = ScriptedLock::Fault::AnswerLost;
        QVERIFY(acquireOf(lock, QStringLiteral("t1")).startsWith(QStringLiteral("error")));
        QCOMPARE(redis.holder, QStringLiteral("t1"));
        QCOMPARE(acquireOf(lock, QStringLiteral("t2")), QStringLiteral("acquired"));
        QCOMPARE(redis.holder, QStringLiteral("t2"));
    }

    // By the next acquire our lock had expired and another runner took it: the give-back is a
    // compare-and-delete, so theirs stays, our acquire is refused, and nothing is tried again.
    void anotherRunnersLockIsNeverTouched()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        QCOMPARE(acquireOf(lock, QStringLiteral("t1")), QStringLiteral("acquired"));
        redis.nextFault = ScriptedLock::Fault::NotSent;
        QVERIFY(!lock.release(QStringLiteral("t1")));
        redis.holder = QStringLiteral("theirs"); // t1 expired; another runner took the lock

        QCOMPARE(acquireOf(lock, QStringLiteral("t2")), QStringLiteral("held"));
        QCOMPARE(redis.holder, QStringLiteral("theirs"));
        QVERIFY(lock.leftTokens().isEmpty());
        redis.calls.clear();
        QCOMPARE(acquireOf(lock, QStringLiteral("t3")), QStringLiteral("held"));
        QCOMPARE(redis.calls, QStringList{QStringLiteral("acquire t3")});
    }

    // A give-back that fails again keeps the token, alongside one the failed acquire after it
    // may have left; both go once the server answers.
    void aGiveBackThatFailsIsKeptForTheNextTry()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        QCOMPARE(acquireOf(lock, QStringLiteral("t1")), QStringLiteral("acquired"));
        redis.nextFault = ScriptedLock::Fault::NotSent;
        QVERIFY(!lock.release(QStringLiteral("t1")));

        redis.nextFault = ScriptedLock::Fault::NotSent; // the give-back of t1
        QCOMPARE(acquireOf(lock, QStringLiteral("t2")), QStringLiteral("held")); // by t1
        QCOMPARE(lock.leftTokens(), QStringList{QStringLiteral("t1")});
        redis.nextFault = ScriptedLock::Fault::None;

        QCOMPARE(acquireOf(lock, QStringLiteral("t3")), QStringLiteral("acquired"));
        QVERIFY(lock.leftTokens().isEmpty());
    }

    // Redis is away: the first give-back that fails stops the rest (each would wait out the
    // timeout in turn); all of them go, oldest first, once it answers again.
    void aFailedGiveBackStopsTheOthers()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        for (const QString &t :
             {QStringLiteral("t1"), QStringLiteral("t2"), QStringLiteral("t3")}) {
            redis.nextFault = ScriptedLock::Fault::NotSent;
            QVERIFY(!lock.release(t));
        }
        QCOMPARE(lock.leftTokens().size(), 3);
        redis.calls.clear();
        redis.nextFault = ScriptedLock::Fault::NotSent;
        lock.releaseLeft();
        QCOMPARE(redis.calls, QStringList{QStringLiteral("release t1")});
        QCOMPARE(lock.leftTokens().size(), 3);
        redis.calls.clear();
        lock.releaseLeft();
        QCOMPARE(redis.calls,
                 (QStringList{QStringLiteral("release t1"), QStringLiteral("release t2"),
                              QStringLiteral("release t3")}));
        QVERIFY(lock.leftTokens().isEmpty());
    }

    // The ordinary case costs nothing: a release that was answered leaves nothing behind.
    void anAnsweredReleaseLeavesNothing()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        QCOMPARE(acquireOf(lock, QStringLiteral("t1")), QStringLiteral("acquired"));
        QVERIFY(*lock.release(QStringLiteral("t1")));
        redis.calls.clear();
        QCOMPARE(acquireOf(lock, QStringLiteral("t2")), QStringLiteral("acquired"));
        QCOMPARE(redis.calls, QStringList{QStringLiteral("acquire t2")});
    }

    // Answer lost on a release that did delete the key: the give-back finds it gone (false) and
    // forgets it, without touching anything.
    void aReleaseThatRanButWasNotAnsweredIsForgotten()
    {
        ScriptedLock redis;
        LeftLockReleaser lock(redis);
        QCOMPARE(acquireOf(lock, QStringLiteral("t1")), QStringLiteral("acquired"));
        redis.nextFault = ScriptedLock::Fault::AnswerLost;
        QVERIFY(!lock.release(QStringLiteral("t1")));
        QVERIFY(redis.holder.isEmpty());
        lock.releaseLeft();
        QVERIFY(lock.leftTokens().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestLeftLockReleaser)
#include "test_leftlockreleaser.moc"
