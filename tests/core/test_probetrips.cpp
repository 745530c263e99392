// #28 case 6: how the probe's replies are read (core/bullmq/probetrips.cpp). Only the answers
// this code knows settle anything: a state it does not know, or a lock TTL that is not a number,
// is an error for that job ("could not look"), never read as "not runnable" or "no worker lock".
// A real redis-server cannot be made to answer that (the script is Reclaim's own), so the
// replies are built here as a newer script or a broken proxy might send them.
#include "bullmq/probetrips.h"

#include <QTest>

using namespace reclaim;

namespace {

RedisValue text(const QByteArray &s)
{
    return RedisValue::bulk(s);
}

RedisValue integer(long long n)
{
    return RedisValue::number(n);
}

// One probe call's reply for one job: the nine values, then the meta `version`.
RedisValue reply(const RedisValue &state, const RedisValue &lockTtl)
{
    return RedisValue::list({state, lockTtl, text("work"), text("{}"), text("1"), text(""),
                             text(""), text(""), text("0"), text("bullmq:6.7.6")});
}

Expected<Sighting, RedisError> readOne(const RedisValue &r)
{
    const QList<JobRef> jobs{
        JobRef{QStringLiteral("bull"), QStringLiteral("q"), QStringLiteral("7")}};
    const QList<ProbeTrip> trips = buildProbeTrips(jobs, RunSettings{});
    QList<Expected<Sighting, RedisError>> out;
    readProbeTrip(trips.first(), QList<RedisResult>{RedisResult(r)}, jobs, out);
    if (out.isEmpty())
        return unexpected(RedisError{RedisError::Kind::Reply, QStringLiteral("no result")});
    return out.first();
}

} // namespace

Q_DECLARE_METATYPE(reclaim::RedisValue)

class TestProbeTrips : public QObject
{
    Q_OBJECT
private slots:
    void knownStatesAreRead_data()
    {
        QTest::addColumn<QByteArray>("state");
        for (const char *s :
             {"waiting", "active", "delayed", "prioritized", "paused", "waiting-children",
              "completed", "failed", "missing", "stray", "list-unresolved"})
            QTest::newRow(s) << QByteArray(s);
    }
    void knownStatesAreRead()
    {
        QFETCH(QByteArray, state);
        const auto s = readOne(reply(text(state), integer(-2)));
        QVERIFY2(s, qPrintable(s ? QString() : s.error().describe()));
        QCOMPARE(s->state, QString::fromLatin1(state));
        QCOMPARE(s->lockTtlMs, -2);
    }

    void anUnknownStateIsCouldNotLook()
    {
        const auto s = readOne(reply(text("archived"), integer(-2)));
        QVERIFY(!s);
        QCOMPARE(s.error().kind, RedisError::Kind::Reply);
        QVERIFY2(s.error().message.contains(QStringLiteral("archived")),
                 qPrintable(s.error().message));
    }

    void aLockTtlThatIsNotANumberIsCouldNotLook_data()
    {
        QTest::addColumn<RedisValue>("ttl");
        QTest::newRow("text") << text("1200");
        QTest::newRow("nil") << RedisValue{};
    }
    void aLockTtlThatIsNotANumberIsCouldNotLook()
    {
        QFETCH(RedisValue, ttl);
        const auto s = readOne(reply(text("completed"), ttl));
        QVERIFY(!s); // read as "no lock", a completed job would be ABSENT
        QCOMPARE(s.error().kind, RedisError::Kind::Reply);
    }

    void theScriptsOwnErrorIsCouldNotLook()
    {
        RedisValue r = reply(text("error"), integer(-2));
        r.elements[2] = text("WRONGTYPE Operation against a key holding the wrong kind of value");
        const auto s = readOne(r);
        QVERIFY(!s);
        QVERIFY(s.error().message.contains(QStringLiteral("WRONGTYPE")));
    }
};

QTEST_GUILESS_MAIN(TestProbeTrips)
#include "test_probetrips.moc"
