// The daemon's log lines: JSON lines parse and carry the run id, domain, job id, action and
// result; text lines stay one line; passwords in URLs never survive rendering.
#include "logging/logger.h"
#include "logging/runlog.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;

namespace {

const QDateTime kStart = QDateTime(QDate(2024, 3, 1), QTime(12, 0), Qt::UTC);

RunReport reportWithActions()
{
    RunReport r;
    r.runId = QStringLiteral("abcd1234");
    r.trigger = QStringLiteral("daemon");
    r.startedAt = kStart;
    r.finishedAt = kStart.addMSecs(250);
    r.redisRoundTrips = 4;
    r.lock.state = LockReport::State::Acquired;
    r.lock.generation = 9;
    r.lock.released = true;
    DomainReport video;
    video.name = QStringLiteral("video");
    CandidateVerdict absent;
    absent.candidate.id = QStringLiteral("vj_1");
    absent.verdict = Verdict::Absent;
    CandidateVerdict scheduled;
    scheduled.candidate.id = QStringLiteral("vj_2");
    scheduled.verdict = Verdict::Scheduled;
    video.candidates = {absent, scheduled};
    DomainReport image;
    image.name = QStringLiteral("image");
    image.candidateError = QStringLiteral("relation \"ImageJob\" does not exist");
    r.domains = {video, image};
    Action requeue;
    requeue.domain = QStringLiteral("video");
    requeue.rowId = QStringLiteral("vj_1");
    requeue.kind = ActionKind::Requeue;
    requeue.queue = QStringLiteral("video-generation");
    requeue.jobId = QStringLiteral("video-compose-vj_1");
    requeue.result = ActionResult::Applied;
    Action fail;
    fail.domain = QStringLiteral("video");
    fail.rowId = QStringLiteral("vj_3");
    fail.kind = ActionKind::Fail;
    fail.result = ActionResult::Stale;
    fail.resultDetail = QStringLiteral("the row moved on");
    r.actions = {requeue, fail};
    return r;
}

QJsonObject asJson(const LogRecord &rec)
{
    const QByteArray line = logging::renderJson(rec.level, kStart, rec.message, rec.fields);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        qFatal("not a JSON object: %s", line.constData());
    if (line.contains('\n'))
        qFatal("a JSON log line contains a line break: %s", line.constData());
    return doc.object();
}

} // namespace

class TestRunLog : public QObject
{
    Q_OBJECT
private slots:
    void actionLinesCarryTheirKeys();
    void summaryIsLastAndCounts();
    void lockHeldNamesTheHolder();
    void domainErrorsAreWarnings();
    void textIsOneLineOfPairs();
    void secretsAreRedacted_data();
    void secretsAreRedacted();
};

void TestRunLog::actionLinesCarryTheirKeys()
{
    const QList<LogRecord> records = describeRun(reportWithActions(), true);
    QList<QJsonObject> actions;
    for (const LogRecord &rec : records) {
        const QJsonObject o = asJson(rec);
        if (o.value(QStringLiteral("event")).toString() == QLatin1String("action"))
            actions << o;
    }
    QCOMPARE(actions.size(), 2);
    const QJsonObject &first = actions.at(0);
    QCOMPARE(first.value(QStringLiteral("runId")).toString(), QStringLiteral("abcd1234"));
    QCOMPARE(first.value(QStringLiteral("domain")).toString(), QStringLiteral("video"));
    QCOMPARE(first.value(QStringLiteral("jobId")).toString(), QStringLiteral("vj_1"));
    QCOMPARE(first.value(QStringLiteral("action")).toString(), QStringLiteral("requeue"));
    QCOMPARE(first.value(QStringLiteral("result")).toString(), QStringLiteral("applied"));
    QCOMPARE(first.value(QStringLiteral("bullmqId")).toString(),
             QStringLiteral("video-compose-vj_1"));
    QCOMPARE(first.value(QStringLiteral("level")).toString(), QStringLiteral("info"));
    QCOMPARE(first.value(QStringLiteral("time")).toString(),
             QStringLiteral("2024-03-01T12:00:00.000Z"));
    const QJsonObject &second = actions.at(1);
    QCOMPARE(second.value(QStringLiteral("action")).toString(), QStringLiteral("fail"));
    QCOMPARE(second.value(QStringLiteral("result")).toString(), QStringLiteral("stale"));
    QCOMPARE(second.value(QStringLiteral("detail")).toString(), QStringLiteral("the row moved on"));
    QVERIFY(!second.contains(QStringLiteral("bullmqId")));
}

void TestRunLog::summaryIsLastAndCounts()
{
    const QList<LogRecord> records = describeRun(reportWithActions(), true);
    const QJsonObject s = asJson(records.last());
    QCOMPARE(s.value(QStringLiteral("event")).toString(), QStringLiteral("run"));
    QCOMPARE(s.value(QStringLiteral("runId")).toString(), QStringLiteral("abcd1234"));
    QCOMPARE(s.value(QStringLiteral("trigger")).toString(), QStringLiteral("daemon"));
    QCOMPARE(s.value(QStringLiteral("outcome")).toString(), QStringLiteral("completed"));
    QCOMPARE(s.value(QStringLiteral("durationMs")).toInt(), 250);
    QCOMPARE(s.value(QStringLiteral("redisRoundTrips")).toInt(), 4);
    const QJsonObject verdicts = s.value(QStringLiteral("verdicts")).toObject();
    QCOMPARE(verdicts.value(QStringLiteral("absent")).toInt(), 1);
    QCOMPARE(verdicts.value(QStringLiteral("scheduled")).toInt(), 1);
    QCOMPARE(verdicts.value(QStringLiteral("unknown")).toInt(), 0);
    const QJsonObject actions = s.value(QStringLiteral("actions")).toObject();
    QCOMPARE(actions.value(QStringLiteral("planned")).toInt(), 2);
    QCOMPARE(actions.value(QStringLiteral("applied")).toInt(), 1);
    QCOMPARE(actions.value(QStringLiteral("stale")).toInt(), 1);
    QVERIFY(!actions.contains(QStringLiteral("error"))); // only results that happened
    QCOMPARE(s.value(QStringLiteral("released")).toBool(), true);
    QCOMPARE(s.value(QStringLiteral("execute")).toBool(), true);
    QCOMPARE(asJson(describeRun(reportWithActions(), false).last())
                 .value(QStringLiteral("execute"))
                 .toBool(),
             false);
}

void TestRunLog::lockHeldNamesTheHolder()
{
    RunReport r;
    r.runId = QStringLiteral("r2");
    r.outcome = RunReport::Outcome::SkippedLockHeld;
    r.lock.state = LockReport::State::Held;
    r.lock.token = QStringLiteral("reclaim;host=box;pid=42;since=2024-03-01T12:00:00Z;nonce=ab");
    r.startedAt = kStart;
    r.finishedAt = kStart;
    const QList<LogRecord> records = describeRun(r, true);
    QCOMPARE(records.size(), 1);
    QVERIFY(records.first().message.contains(r.lock.token));
    QCOMPARE(asJson(records.first()).value(QStringLiteral("holder")).toString(), r.lock.token);
    QCOMPARE(records.first().level, LogLevel::Info);
}

void TestRunLog::domainErrorsAreWarnings()
{
    const QList<LogRecord> records = describeRun(reportWithActions(), true);
    int errors = 0;
    for (const LogRecord &rec : records) {
        const QJsonObject o = asJson(rec);
        if (o.value(QStringLiteral("event")).toString() != QLatin1String("domain-error"))
            continue;
        ++errors;
        QCOMPARE(rec.level, LogLevel::Warn);
        QCOMPARE(o.value(QStringLiteral("domain")).toString(), QStringLiteral("image"));
        QVERIFY(o.value(QStringLiteral("detail")).toString().contains(QLatin1String("ImageJob")));
    }
    QCOMPARE(errors, 1);
}

void TestRunLog::textIsOneLineOfPairs()
{
    const QString line = logging::renderText(
        QStringLiteral("could not connect:\n\tConnection refused\nQPSQL: Unable to connect"),
        {{QStringLiteral("event"), QStringLiteral("run")},
         {QStringLiteral("n"), 3},
         {QStringLiteral("ok"), true},
         {QStringLiteral("detail"), QStringLiteral("two words\nand \"quotes\"")},
         {QStringLiteral("counts"), QJsonObject{{QStringLiteral("absent"), 2}}}});
    QCOMPARE(line,
             QStringLiteral(
                 "could not connect: Connection refused QPSQL: Unable to connect event=run n=3 "
                 "ok=true detail=\"two words\\nand \\\"quotes\\\"\" counts.absent=2"));
    QVERIFY(!line.contains(QLatin1Char('\n')));
}

void TestRunLog::secretsAreRedacted_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("detail");
    QTest::newRow("in the message")
        << QStringLiteral("cannot connect to postgresql://app:hunter2@db:5432/app")
        << QStringLiteral("plain");
    QTest::newRow("in a field") << QStringLiteral("plain")
                                << QStringLiteral(
                                       "redis://:hunter2@cache:6379/0 refused the connection");
}

void TestRunLog::secretsAreRedacted()
{
    QFETCH(QString, message);
    QFETCH(QString, detail);
    const LogFields fields{
        {QStringLiteral("detail"), detail},
        {QStringLiteral("nested"), QJsonObject{{QStringLiteral("url"), detail}}}};
    const QString text = logging::renderText(message, fields);
    const QByteArray json = logging::renderJson(LogLevel::Error, kStart, message, fields);
    QVERIFY2(!text.contains(QLatin1String("hunter2")), qPrintable(text));
    QVERIFY2(!json.contains("hunter2"), json.constData());
    QVERIFY(text.contains(QLatin1String(":***@")));
    QVERIFY(json.contains(":***@"));
    QVERIFY(QJsonDocument::fromJson(json).isObject());
}

QTEST_GUILESS_MAIN(TestRunLog)
#include "test_runlog.moc"
