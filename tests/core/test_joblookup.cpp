// Find a job by id over fakes: a row found whatever its status, with what its direct lookup sees
// now and whether it is a candidate; a row in no table; a table that cannot be read says so; a
// queue that cannot be looked at is UNKNOWN, never "not there". Nothing is written.
#include "recovery/joblookup.h"
#include "support/fakes.h"
#include "testprint.h"

#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

class TestJobLookup : public QObject
{
    Q_OBJECT
private slots:
    void aRowIsExplainedWhateverItsStatus_data()
    {
        QTest::addColumn<QString>("status");
        QTest::addColumn<int>("ageSeconds");
        QTest::addColumn<bool>("inQueue");
        QTest::addColumn<bool>("candidate");
        QTest::addColumn<Verdict>("verdict");
        QTest::newRow("done long ago, no queue entry")
            << "READY" << 86400 << false << false << Verdict::Absent;
        QTest::newRow("stuck and orphaned")
            << "PROCESSING" << 86400 << false << true << Verdict::Absent;
        QTest::newRow("processing, young, in its queue")
            << "PROCESSING" << 5 << true << false << Verdict::Scheduled;
    }
    void aRowIsExplainedWhateverItsStatus()
    {
        QFETCH(QString, status);
        QFETCH(int, ageSeconds);
        QFETCH(bool, inQueue);
        QFETCH(bool, candidate);
        QFETCH(Verdict, verdict);
        CallLog log;
        FakeQueue queue(&log);
        FakeJobStore store(&log);
        const ReclaimConfig config = fakeConfig();
        store.rows.insert(
            QStringLiteral("vj_1"),
            FakeJobStore::Row{QStringLiteral("video"),
                              QStringLiteral("vj_1"),
                              QStringLiteral("EXPORT"),
                              status,
                              QDateTime::currentDateTimeUtc()
                                  .addSecs(-ageSeconds)
                                  .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")),
                              {},
                              {}});
        if (inQueue)
            queue.put(QStringLiteral("video-export"), QStringLiteral("video-export-vj_1"),
                      QStringLiteral("active"));
        const auto found = explainJob(config, store, queue, QStringLiteral("vj_1"));
        QCOMPARE(found.size(), 1);
        const JobExplanation &e = found.first();
        QCOMPARE(e.domain, QStringLiteral("video"));
        QVERIFY(e.error.isEmpty());
        QVERIFY(e.lookup.has_value());
        QCOMPARE(e.lookup->candidate.status, status);
        QCOMPARE(e.candidate, candidate);
        QCOMPARE(e.lookup->verdict, verdict);
        // Every domain's table was asked; nothing was written or locked.
        QCOMPARE(log.count(QStringLiteral("store:readRow:video:vj_1")), 1);
        QCOMPARE(log.count(QStringLiteral("store:readRow:image:vj_1")), 1);
        for (const QString &call : log)
            QVERIFY2(!call.startsWith(QStringLiteral("store:apply")) &&
                         !call.startsWith(QStringLiteral("queue:enqueue")) &&
                         !call.startsWith(QStringLiteral("lock:")),
                     qPrintable(call));
    }

    void anIdInNoTableIsSaidSo()
    {
        CallLog log;
        FakeQueue queue(&log);
        FakeJobStore store(&log);
        QVERIFY(explainJob(fakeConfig(), store, queue, QStringLiteral("nope")).isEmpty());
    }

    void anUnreadableTableIsNamedNotSkipped()
    {
        CallLog log;
        FakeQueue queue(&log);
        FakeJobStore store(&log);
        store.readError = StoreError{QStringLiteral("PostgreSQL reading VideoJob: timeout")};
        const auto found = explainJob(fakeConfig(), store, queue, QStringLiteral("vj_1"));
        QCOMPARE(found.size(), 2); // one per domain, each saying it could not look
        QVERIFY(found.first().error.contains(QStringLiteral("timeout")));
        QVERIFY(!found.first().lookup);
    }

    void aQueueThatCannotBeLookedAtIsUnknown()
    {
        CallLog log;
        FakeQueue queue(&log);
        FakeJobStore store(&log);
        store.rows.insert(QStringLiteral("vj_1"),
                          FakeJobStore::Row{QStringLiteral("video"),
                                            QStringLiteral("vj_1"),
                                            QStringLiteral("EXPORT"),
                                            QStringLiteral("PROCESSING"),
                                            QStringLiteral("2026-01-01 10:00:00.123"),
                                            {},
                                            {}});
        queue.probeError = RedisError{RedisError::Kind::Timeout, QStringLiteral("timed out")};
        const auto found = explainJob(fakeConfig(), store, queue, QStringLiteral("vj_1"));
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first().lookup->verdict, Verdict::Unknown);
    }
};

QTEST_GUILESS_MAIN(TestJobLookup)
#include "test_joblookup.moc"
