// The configuration loader: the sample loads; every class of bad input is refused with a
// message naming the key path; passwords never appear in messages.
#include "config/configloader.h"
#include "support/testcerts.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;

namespace {

QJsonObject sample()
{
    QFile f(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("sample config missing");
    return QJsonDocument::fromJson(f.readAll()).object();
}

QProcessEnvironment emptyEnv()
{
    return QProcessEnvironment();
}

// Sets a value at a dotted path like "domains.1.queues" (numbers index arrays).
QJsonValue setPath(QJsonValue node, QStringList path, const QJsonValue &value, bool remove)
{
    if (path.isEmpty())
        return value;
    const QString head = path.takeFirst();
    bool isIndex = false;
    const int index = head.toInt(&isIndex);
    if (isIndex) {
        QJsonArray a = node.toArray();
        a[index] = setPath(a.at(index), path, value, remove);
        return a;
    }
    QJsonObject o = node.toObject();
    if (path.isEmpty() && remove)
        o.remove(head);
    else
        o[head] = setPath(o.value(head), path, value, remove);
    return o;
}

Expected<ReclaimConfig, ConfigError> loadEdited(const QString &path, const QJsonValue &value,
                                                bool remove = false)
{
    const QJsonValue edited = path.isEmpty()
                                  ? QJsonValue(sample())
                                  : setPath(sample(), path.split(QLatin1Char('.')), value, remove);
    return ConfigLoader::loadJson(QJsonDocument(edited.toObject()).toJson(),
                                  QStringLiteral("test.json"), emptyEnv());
}

} // namespace

class TestConfigLoader : public QObject
{
    Q_OBJECT
private slots:
    void sampleLoads()
    {
        auto c = loadEdited({}, {});
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->domains.size(), 5);
        const DomainConfig &video = c->domains.at(1);
        QCOMPARE(video.name, QStringLiteral("video"));
        QCOMPARE(video.queues,
                 (QStringList{QStringLiteral("video-generation"), QStringLiteral("video-export")}));
        QCOMPARE(video.currentJobId(QStringLiteral("vj_1"), QStringLiteral("COMPOSE")),
                 QStringLiteral("video-compose-vj_1"));
        QVERIFY(video.restoreFor(QStringLiteral("COMPOSE")));
        QVERIFY(!video.restoreFor(QStringLiteral("EXPORT")));
        QCOMPARE(video.parentFor(QStringLiteral("EXPORT"))->column, QStringLiteral("exportStatus"));
        QCOMPARE(c->run.lockTtl.count(), 600);
        QCOMPARE(c->run.policy, Policy::Auto);
    }

    // Issue 20: a job table and a parent table in schemas of their own.
    void schemaQualifiedTablesLoad()
    {
        QJsonObject root = sample();
        root = setPath(root, QStringLiteral("domains.0.table").split(QLatin1Char('.')),
                       QStringLiteral("acme_render.SlideJob"), false)
                   .toObject();
        root = setPath(root, QStringLiteral("domains.0.parents.0.table").split(QLatin1Char('.')),
                       QStringLiteral("acme_app.Slide"), false)
                   .toObject();
        auto c = ConfigLoader::loadJson(QJsonDocument(root).toJson(), QStringLiteral("test.json"),
                                        emptyEnv());
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->domains.at(0).table, QStringLiteral("acme_render.SlideJob"));
        QCOMPARE(c->domains.at(0).parents.at(0).table, QStringLiteral("acme_app.Slide"));
        QCOMPARE(c->domains.at(1).table, QStringLiteral("VideoJob")); // a bare name still loads
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<bool>("remove");
        QTest::addColumn<QString>("expected");

        QTest::newRow("unknown key") << "domains.0.tresholdSeconds" << QJsonValue(5) << false
                                     << "test.json: domains[0].tresholdSeconds: unknown key";
        QTest::newRow("wrong type")
            << "domains.1.thresholdSeconds" << QJsonValue(QStringLiteral("1h")) << false
            << "test.json: domains[1].thresholdSeconds: must be an integer";
        QTest::newRow("not an identifier")
            << "domains.2.table" << QJsonValue(QStringLiteral("Doc\"; DROP TABLE x")) << false
            << "test.json: domains[2].table: 'Doc\"; DROP TABLE x' is not a table name: expected "
               "table or schema.table";
        // Issue 20: schema.table is accepted, but only two plain parts, never quotes or ';'.
        const QString tableProblem =
            QStringLiteral("' is not a table name: expected table or schema.table, each a plain "
                           "SQL identifier");
        for (const auto &[name, key, value] :
             {std::tuple{"three parts", "domains.0.table", "a.b.c"},
              {"quoted schema", "domains.1.table", "\"acme\".VideoJob"},
              {"quote inside", "domains.1.table", "acme.Video\"Job"},
              {"semicolon", "domains.2.table", "acme;.DocumentJob"},
              {"statement after", "domains.2.table", "acme.DocumentJob; DROP TABLE x"},
              {"empty schema", "domains.3.table", ".ImageJob"},
              {"empty table", "domains.3.table", "acme."},
              {"parent three parts", "domains.0.parents.1.table", "a.b.c"},
              {"parent semicolon", "domains.4.parents.0.table", "acme.Narration;"}}) {
            const QString path = QString::fromLatin1(key);
            QString shown = path;
            shown.replace(QRegularExpression(QStringLiteral("\\.(\\d+)")), QStringLiteral("[\\1]"));
            QTest::newRow(name) << path << QJsonValue(QString::fromUtf8(value)) << false
                                << QStringLiteral("test.json: %1: '%2%3")
                                       .arg(shown, QString::fromUtf8(value), tableProblem);
        }
        QTest::newRow("column not an identifier")
            << "domains.0.columns.updatedAt" << QJsonValue(QStringLiteral("updated at")) << false
            << "test.json: domains[0].columns.updatedAt: 'updated at' is not a plain SQL "
               "identifier";
        QTest::newRow("empty queue list")
            << "domains.3.queues" << QJsonValue(QJsonArray()) << false
            << "test.json: domains[3].queues: must not be an empty list";
        QTest::newRow("queue with colon")
            << "domains.3.queues" << QJsonValue(QJsonArray{QStringLiteral("a:b")}) << false
            << "test.json: domains[3].queues[0]: 'a:b' is not a valid BullMQ queue name";
        QTest::newRow("template without id")
            << "domains.4.jobIdTemplate" << QJsonValue(QStringLiteral("narration")) << false
            << "test.json: domains[4].jobIdTemplate: 'narration' does not contain the row id "
               "placeholder {id}";
        QTest::newRow("template with colon")
            << "domains.4.jobIdTemplate" << QJsonValue(QStringLiteral("n:{id}")) << false
            << "test.json: domains[4].jobIdTemplate: BullMQ job ids may not contain ':'";
        QTest::newRow("missing table") << "domains.0.table" << QJsonValue() << true
                                       << "test.json: domains[0].table: is required";
        QTest::newRow("restore to foreign queue")
            << "domains.1.restore.queue" << QJsonValue(QStringLiteral("image-render")) << false
            << "test.json: domains[1].restore.queue: 'image-render' is not one of the domain's "
               "queues";
        QTest::newRow("restore without placeholder")
            << "domains.1.restore.query" << QJsonValue(QStringLiteral("SELECT 1")) << false
            << "test.json: domains[1].restore.query: must use the :jobId placeholder";
        QTest::newRow("bad policy")
            << "run.policy" << QJsonValue(QStringLiteral("yolo")) << false
            << "test.json: run.policy: 'yolo' is not a policy (auto, approve or observe)";
        QTest::newRow("bad domain policy")
            << "domains.2.policy" << QJsonValue(QStringLiteral("manual")) << false
            << "test.json: domains[2].policy: 'manual' is not a policy (auto, approve or observe)";
        QTest::newRow("bad policy of a kind")
            << "domains.2.policy" << QJsonValue(QJsonObject{{QStringLiteral("fail"), 1}}) << false
            << "test.json: domains[2].policy.fail: must be a string";
        QTest::newRow("unknown kind")
            << "domains.2.policy"
            << QJsonValue(QJsonObject{{QStringLiteral("retry"), QStringLiteral("auto")}}) << false
            << "test.json: domains[2].policy.retry: unknown key";
        QTest::newRow("policy neither name nor object")
            << "domains.2.policy" << QJsonValue(true) << false
            << "test.json: domains[2].policy: must be a policy (auto, approve or observe) or an "
               "object";
        QTest::newRow("guard max actions zero")
            << "run.guard" << QJsonValue(QJsonObject{{QStringLiteral("maxActions"), 0}}) << false
            << "test.json: run.guard.maxActions: must be between 1 and";
        QTest::newRow("guard share above one")
            << "run.guard" << QJsonValue(QJsonObject{{QStringLiteral("maxAbsentShare"), 1.5}})
            << false << "test.json: run.guard.maxAbsentShare: must be a number from 0 to 1";
        QTest::newRow("guard share as text")
            << "run.guard"
            << QJsonValue(QJsonObject{{QStringLiteral("maxAbsentShare"), QStringLiteral("50%")}})
            << false << "test.json: run.guard.maxAbsentShare: must be a number from 0 to 1";
        QTest::newRow("guard unknown key")
            << "run.guard" << QJsonValue(QJsonObject{{QStringLiteral("maxAction"), 5}}) << false
            << "test.json: run.guard.maxAction: unknown key";
        QTest::newRow("bullmq major not written")
            << "domains.3.bullmqIfUnstamped" << QJsonValue(7) << false
            << "test.json: domains[3].bullmqIfUnstamped: 7 is not a BullMQ major Reclaim writes";
        QTest::newRow("bullmq major as text")
            << "domains.3.bullmqIfUnstamped" << QJsonValue(QStringLiteral("5")) << false
            << "test.json: domains[3].bullmqIfUnstamped: must be an integer";
        QTest::newRow("job options: priority above BullMQ's")
            << "domains.1.jobOptions"
            << QJsonValue(QJsonObject{{QStringLiteral("priority"), 3000000}}) << false
            << "test.json: domains[1].jobOptions.priority: must be between 0 and 2097152";
        QTest::newRow("job options: backoff without a type")
            << "domains.1.jobOptions"
            << QJsonValue(QJsonObject{
                   {QStringLiteral("backoff"), QJsonObject{{QStringLiteral("delay"), 10}}}})
            << false << "test.json: domains[1].jobOptions.backoff.type: is required";
        QTest::newRow("job options: retention as text")
            << "domains.1.jobOptions"
            << QJsonValue(QJsonObject{{QStringLiteral("removeOnFail"), QStringLiteral("yes")}})
            << false << "test.json: domains[1].jobOptions.removeOnFail: must be true, false";
        QTest::newRow("job options: unknown option")
            << "domains.1.jobOptions" << QJsonValue(QJsonObject{{QStringLiteral("delay"), 5}})
            << false << "test.json: domains[1].jobOptions.delay: unknown key";
        QTest::newRow("no domains") << "domains" << QJsonValue(QJsonArray()) << false
                                    << "test.json: domains: must be a non-empty list of domains";
        QTest::newRow("duplicate domain")
            << "domains.1.name" << QJsonValue(QStringLiteral("slide")) << false
            << "test.json: domains[1].name: 'slide' is used by another domain";
        QTest::newRow("type filter without column")
            << "domains.3.types" << QJsonValue(QJsonArray{QStringLiteral("X")}) << false
            << "test.json: domains[3].types: a type filter needs columns.type to be set";
        QTest::newRow("bad redis url")
            << "connections.redisUrl" << QJsonValue(QStringLiteral("http://x")) << false
            << "test.json: connections.redisUrl: unknown scheme \"http\"";
        QTest::newRow("redis port out of range")
            << "connections.redisUrl"
            << QJsonValue(QStringLiteral("redis://:hunter2@cache:70000/0")) << false
            << "test.json: connections.redisUrl: port 70000 is out of range (1 to 65535)";
        QTest::newRow("postgres port out of range")
            << "connections.postgresUrl"
            << QJsonValue(QStringLiteral("postgresql://app:hunter2@db:70000/app")) << false
            << "test.json: connections.postgresUrl: port 70000 is out of range (1 to 65535)";
        // Without its password an ACL user would silently be the default user.
        QTest::newRow("redis acl user without a password")
            << "connections.redisUrl" << QJsonValue(QStringLiteral("redis://reclaim@cache:6379/0"))
            << false << "test.json: connections.redisUrl: user 'reclaim' has no password";
        QTest::newRow("redis unix socket with a host")
            << "connections.redisUrl"
            << QJsonValue(QStringLiteral("unix://:hunter2@cache/run/redis.sock")) << false
            << "test.json: connections.redisUrl: unix:// takes no host";
        QTest::newRow("unknown time zone")
            << "run.timeZone" << QJsonValue(QStringLiteral("Mars/Olympus_Mons")) << false
            << "test.json: run.timeZone: 'Mars/Olympus_Mons' is not a known time zone";
        // Qt's own offset id: PostgreSQL would read it as POSIX, with the sign reversed.
        QTest::newRow("qt offset time zone")
            << "run.timeZone" << QJsonValue(QStringLiteral("UTC+05:00")) << false
            << "test.json: run.timeZone: 'UTC+05:00' is not a known time zone";
        QTest::newRow("empty time zone") << "run.timeZone" << QJsonValue(QString()) << false
                                         << "test.json: run.timeZone: '' is not a known time zone";
        QTest::newRow("time zone as a path")
            << "run.timeZone" << QJsonValue(QStringLiteral("Europe/../Europe/Berlin")) << false
            << "test.json: run.timeZone: 'Europe/../Europe/Berlin' is not a known time zone";
        QTest::newRow("negative listing limit")
            << "run.scheduledListed" << QJsonValue(-1) << false
            << "test.json: run.scheduledListed: must be between 0 and 10000000";
        QTest::newRow("missing postgres url") << "connections.postgresUrl" << QJsonValue() << true
                                              << "test.json: connections.postgresUrl: is not set "
                                                 "(set it in the file or in $RECLAIM_PG_URL)";
    }

    void rejects()
    {
        QFETCH(QString, path);
        QFETCH(QJsonValue, value);
        QFETCH(bool, remove);
        QFETCH(QString, expected);
        auto c = loadEdited(path, value, remove);
        QVERIFY(!c.hasValue());
        QVERIFY2(c.error().toString().startsWith(expected), qPrintable(c.error().toString()));
        QVERIFY(!c.error().toString().contains(QLatin1String("hunter2")));
    }

    // #31 item 10: a domain's job options load as the JSON object the enqueue writes.
    void jobOptionsLoad()
    {
        auto c = loadEdited(
            QStringLiteral("domains.1.jobOptions"),
            QJsonObject{
                {QStringLiteral("attempts"), 5},
                {QStringLiteral("backoff"),
                 QJsonObject{{QStringLiteral("type"), QStringLiteral("exponential")},
                             {QStringLiteral("delay"), 1000}}},
                {QStringLiteral("removeOnComplete"), 100},
                {QStringLiteral("removeOnFail"), QJsonObject{{QStringLiteral("age"), 3600}}}});
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        const QJsonObject o = QJsonDocument::fromJson(c->domains.at(1).jobOptions).object();
        QCOMPARE(o.value(QStringLiteral("attempts")).toInt(), 5);
        QCOMPARE(o.value(QStringLiteral("backoff")).toObject().value(QStringLiteral("type")),
                 QJsonValue(QStringLiteral("exponential")));
        QCOMPARE(o.value(QStringLiteral("removeOnComplete")).toInt(), 100);
        QCOMPARE(
            o.value(QStringLiteral("removeOnFail")).toObject().value(QStringLiteral("age")).toInt(),
            3600);
        QVERIFY(c->domains.at(0).jobOptions.isEmpty()); // not set: the library's defaults
    }

    // #30: the major to assume for a queue that lost its stamp; one queue in two domains
    // cannot assume two.
    void bullmqIfUnstampedLoads()
    {
        auto c = loadEdited(QStringLiteral("domains.3.bullmqIfUnstamped"), 5);
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->domains.at(3).bullmqIfUnstamped, QStringLiteral("5"));
        QCOMPARE(c->domains.at(2).bullmqIfUnstamped, QString()); // not set: nothing assumed

        QJsonObject root = sample();
        root = setPath(root, QStringLiteral("domains.3.queues").split(QLatin1Char('.')),
                       QJsonArray{QStringLiteral("document-parse")}, false)
                   .toObject();
        root = setPath(root, QStringLiteral("domains.3.bullmqIfUnstamped").split(QLatin1Char('.')),
                       6, false)
                   .toObject();
        auto clash = ConfigLoader::loadJson(QJsonDocument(root).toJson(),
                                            QStringLiteral("test.json"), emptyEnv());
        QVERIFY(!clash.hasValue());
        QVERIFY2(clash.error().toString().startsWith(QStringLiteral(
                     "test.json: domains[3].bullmqIfUnstamped: queue document-parse is also in "
                     "domain document")),
                 qPrintable(clash.error().toString()));
    }

    // #29: each kind takes the domain's policy, else run.policy; the guard's defaults hold
    // unless set.
    void policiesAndGuardLoad()
    {
        auto c = loadEdited(QStringLiteral("domains.2.policy"),
                            QJsonObject{{QStringLiteral("fail"), QStringLiteral("approve")}});
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->domains.at(2).requeuePolicy, Policy::Auto);
        QCOMPARE(c->domains.at(2).failPolicy, Policy::Approve);
        QCOMPARE(c->domains.at(1).failPolicy, Policy::Auto);
        QCOMPARE(c->run.guard.maxActions, GuardSettings{}.maxActions);
        QVERIFY(c->executesAnything());

        QJsonObject root = sample();
        QJsonObject run = root.value(QStringLiteral("run")).toObject();
        run.insert(QStringLiteral("policy"), QStringLiteral("observe"));
        run.insert(QStringLiteral("guard"), QJsonObject{{QStringLiteral("maxActions"), 7},
                                                        {QStringLiteral("maxAbsentShare"), 0.25},
                                                        {QStringLiteral("minCandidates"), 3}});
        root.insert(QStringLiteral("run"), run);
        QJsonArray domains = root.value(QStringLiteral("domains")).toArray();
        QJsonObject slide = domains.at(0).toObject();
        slide.insert(QStringLiteral("policy"), QStringLiteral("approve"));
        domains[0] = slide;
        QJsonObject video = domains.at(1).toObject();
        video.insert(QStringLiteral("policy"),
                     QJsonObject{{QStringLiteral("requeue"), QStringLiteral("auto")}});
        domains[1] = video;
        root.insert(QStringLiteral("domains"), domains);
        c = ConfigLoader::loadJson(QJsonDocument(root).toJson(), QStringLiteral("test.json"),
                                   emptyEnv());
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->domains.at(0).requeuePolicy, Policy::Approve);
        QCOMPARE(c->domains.at(0).failPolicy, Policy::Approve);
        QCOMPARE(c->domains.at(1).requeuePolicy, Policy::Auto);
        QCOMPARE(c->domains.at(1).failPolicy, Policy::Observe); // run.policy, not named
        QCOMPARE(c->domains.at(2).failPolicy, Policy::Observe);
        QCOMPARE(c->run.guard.maxActions, 7);
        QCOMPARE(c->run.guard.maxAbsentShare, 0.25);
        QCOMPARE(c->run.guard.minCandidates, 3);
        QVERIFY(c->executesAnything()); // video's requeues

        // Nothing on auto anywhere: a runner only plans, holds and reports.
        video.insert(QStringLiteral("policy"), QStringLiteral("observe"));
        domains[1] = video;
        root.insert(QStringLiteral("domains"), domains);
        c = ConfigLoader::loadJson(QJsonDocument(root).toJson(), QStringLiteral("test.json"),
                                   emptyEnv());
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QVERIFY(!c->executesAnything());
    }

    void knownTimeZonesLoad_data()
    {
        QTest::addColumn<QString>("zone");
        for (const char *zone : {"UTC", "Etc/UTC", "Europe/Berlin", "America/New_York",
                                 "America/Argentina/Buenos_Aires", "Etc/GMT+5"})
            QTest::newRow(zone) << QString::fromLatin1(zone);
    }

    void knownTimeZonesLoad()
    {
        QFETCH(QString, zone);
        auto c = loadEdited(QStringLiteral("run.timeZone"), zone);
        QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
        QCOMPARE(c->run.timeZone, zone);
    }

    // The lock must outlive the longest single wait of a run: at least 3 x the larger of the
    // PostgreSQL and Redis timeouts, or a write blocked on a table lock lets it expire.
    void lockTtlMustOutlastTheLongestWait_data()
    {
        QTest::addColumn<int>("ttlS");
        QTest::addColumn<int>("postgresMs");
        QTest::addColumn<int>("redisMs");
        QTest::addColumn<QString>("expected"); // empty: accepted

        QTest::newRow("ttl equal to the postgres timeout (the incident)")
            << 6 << 6000 << 2000
            << "test.json: run.lockTtlSeconds: 6 s is too short: it must be at least 18 s, 3 "
               "times the longest single wait of a run (run.postgresTimeoutMs 6000 ms, "
               "run.redisTimeoutMs 2000 ms)";
        QTest::newRow("one second short")
            << 17 << 6000 << 2000 << "test.json: run.lockTtlSeconds: 17 s is too short";
        QTest::newRow("exactly three times") << 18 << 6000 << 2000 << QString();
        QTest::newRow("redis is the longer wait")
            << 20 << 1000 << 10000
            << "test.json: run.lockTtlSeconds: 20 s is too short: it must be at least 30 s";
        QTest::newRow("redis wait, enough") << 30 << 1000 << 10000 << QString();
        QTest::newRow("rounded up to whole seconds")
            << 2 << 700 << 50
            << "test.json: run.lockTtlSeconds: 2 s is too short: it must be "
               "at least 3 s";
        QTest::newRow("smallest ttl, short waits") << 2 << 600 << 600 << QString();
    }

    void lockTtlMustOutlastTheLongestWait()
    {
        QFETCH(int, ttlS);
        QFETCH(int, postgresMs);
        QFETCH(int, redisMs);
        QFETCH(QString, expected);
        QJsonObject config = sample();
        QJsonObject run = config.value(QStringLiteral("run")).toObject();
        run.insert(QStringLiteral("lockTtlSeconds"), ttlS);
        run.insert(QStringLiteral("postgresTimeoutMs"), postgresMs);
        run.insert(QStringLiteral("redisTimeoutMs"), redisMs);
        config.insert(QStringLiteral("run"), run);
        auto c = ConfigLoader::loadJson(QJsonDocument(config).toJson(), QStringLiteral("test.json"),
                                        emptyEnv());
        if (expected.isEmpty()) {
            QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
            QCOMPARE(c->run.lockTtl.count(), ttlS);
            return;
        }
        QVERIFY(!c.hasValue());
        QVERIFY2(c.error().toString().startsWith(expected), qPrintable(c.error().toString()));
    }

    void malformedJsonNamesFileAndLine()
    {
        auto c = ConfigLoader::loadJson("{\n  \"domains\": [\n  oops\n]}",
                                        QStringLiteral("broken.json"), emptyEnv());
        QVERIFY(!c.hasValue());
        QVERIFY2(c.error().toString().startsWith(
                     QStringLiteral("broken.json: not valid JSON at line 3")),
                 qPrintable(c.error().toString()));
    }

    void missingFileIsNamed()
    {
        auto c = ConfigLoader::loadFile(QStringLiteral("/nonexistent/reclaim.json"), emptyEnv());
        QVERIFY(!c.hasValue());
        QCOMPARE(c.error().toString(), QStringLiteral("/nonexistent/reclaim.json: no such file"));
    }

    void environmentOverridesFileAndPasswordsStayOut()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("RECLAIM_PG_URL"),
                   QStringLiteral("postgresql://app:s3cr3t@db.internal:6543/prod"));
        auto c =
            ConfigLoader::loadJson(QJsonDocument(sample()).toJson(), QStringLiteral("t.json"), env);
        QVERIFY(c.hasValue());
        QCOMPARE(c->postgres.host, QStringLiteral("db.internal"));
        QCOMPARE(c->postgres.password, QStringLiteral("s3cr3t"));
        QCOMPARE(c->postgres.redacted(),
                 QStringLiteral("postgresql://app:***@db.internal:6543/prod"));

        env.insert(QStringLiteral("RECLAIM_REDIS_URL"),
                   QStringLiteral("redis://:hunter2@cache:6379/notanumber"));
        auto bad =
            ConfigLoader::loadJson(QJsonDocument(sample()).toJson(), QStringLiteral("t.json"), env);
        QVERIFY(!bad.hasValue());
        QVERIFY2(bad.error().toString().contains(QStringLiteral("$RECLAIM_REDIS_URL")),
                 qPrintable(bad.error().toString()));
        QVERIFY(!bad.error().toString().contains(QStringLiteral("hunter2")));
    }

    // connections.redisTls: every file is read at load, and every problem names its key.
    void redisTls_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QJsonObject>("tls");  // "$DIR" stands for the certificates' directory
        QTest::addColumn<QString>("expected"); // empty: loads
        const QString url = QStringLiteral("rediss://reclaim:hunter2@127.0.0.1:6380/0");
        QTest::newRow("ca, client certificate, server name")
            << url
            << QJsonObject{{QStringLiteral("ca"), QStringLiteral("$DIR/ca.pem")},
                           {QStringLiteral("cert"), QStringLiteral("$DIR/client.pem")},
                           {QStringLiteral("key"), QStringLiteral("$DIR/client.key")},
                           {QStringLiteral("serverName"), QStringLiteral("localhost")}}
            << QString();
        QTest::newRow("system CAs") << url << QJsonObject() << QString();
        QTest::newRow("insecure") << url << QJsonObject{{QStringLiteral("insecure"), true}}
                                  << QString();
        QTest::newRow("tls settings for a plain url")
            << QStringLiteral("redis://:hunter2@127.0.0.1:6379/0")
            << QJsonObject{{QStringLiteral("ca"), QStringLiteral("$DIR/ca.pem")}}
            << "test.json: connections.redisTls: is set, but connections.redisUrl is not a "
               "rediss:// URL";
        QTest::newRow("certificate without its key")
            << url << QJsonObject{{QStringLiteral("cert"), QStringLiteral("$DIR/client.pem")}}
            << "test.json: connections.redisTls.key: is required with connections.redisTls.cert";
        QTest::newRow("key without its certificate")
            << url << QJsonObject{{QStringLiteral("key"), QStringLiteral("$DIR/client.key")}}
            << "test.json: connections.redisTls.cert: is required with connections.redisTls.key";
        QTest::newRow("missing ca file")
            << url << QJsonObject{{QStringLiteral("ca"), QStringLiteral("$DIR/nope.pem")}}
            << "test.json: connections.redisTls.ca: no such file: $DIR/nope.pem";
        QTest::newRow("ca file is not PEM")
            << url << QJsonObject{{QStringLiteral("ca"), QStringLiteral("$DIR/ca.cnf")}}
            << "test.json: connections.redisTls.ca: $DIR/ca.cnf holds no PEM certificate";
        QTest::newRow("ca is a directory")
            << url << QJsonObject{{QStringLiteral("ca"), QStringLiteral("$DIR/cadb")}}
            << "test.json: connections.redisTls.ca: cannot read $DIR/cadb";
        QTest::newRow("key file holds a certificate")
            << url
            << QJsonObject{{QStringLiteral("cert"), QStringLiteral("$DIR/client.pem")},
                           {QStringLiteral("key"), QStringLiteral("$DIR/client.pem")}}
            << "test.json: connections.redisTls.key: $DIR/client.pem holds no unencrypted PEM "
               "private key";
        QTest::newRow("missing key file")
            << url
            << QJsonObject{{QStringLiteral("cert"), QStringLiteral("$DIR/client.pem")},
                           {QStringLiteral("key"), QStringLiteral("$DIR/gone.key")}}
            << "test.json: connections.redisTls.key: no such file: $DIR/gone.key";
        QTest::newRow("insecure is not a boolean")
            << url << QJsonObject{{QStringLiteral("insecure"), QStringLiteral("yes")}}
            << "test.json: connections.redisTls.insecure: must be true or false";
        QTest::newRow("insecure with a ca")
            << url
            << QJsonObject{{QStringLiteral("insecure"), true},
                           {QStringLiteral("ca"), QStringLiteral("$DIR/ca.pem")}}
            << "test.json: connections.redisTls.insecure: true turns off the verification "
               "connections.redisTls.ca is for";
        QTest::newRow("misspelt key")
            << url << QJsonObject{{QStringLiteral("caFile"), QStringLiteral("$DIR/ca.pem")}}
            << "test.json: connections.redisTls.caFile: unknown key";
    }

    void redisTls()
    {
        QFETCH(QString, url);
        QFETCH(QJsonObject, tls);
        QFETCH(QString, expected);
        QTemporaryDir &dir = m_tlsDir;
        if (!m_certsMade) { // made once: openssl takes a while per key
            test::TestCerts certs;
            QVERIFY2(certs.make(dir.path()), qPrintable(certs.error()));
            m_certsMade = true;
        }
        QJsonObject given;
        for (auto it = tls.begin(); it != tls.end(); ++it)
            given[it.key()] =
                it.value().isString()
                    ? QJsonValue(it.value().toString().replace(QStringLiteral("$DIR"), dir.path()))
                    : it.value();
        QJsonObject config = sample();
        QJsonObject connections = config.value(QStringLiteral("connections")).toObject();
        connections[QStringLiteral("redisUrl")] = url;
        if (!tls.isEmpty())
            connections[QStringLiteral("redisTls")] = given;
        config[QStringLiteral("connections")] = connections;
        auto c = ConfigLoader::loadJson(QJsonDocument(config).toJson(), QStringLiteral("test.json"),
                                        emptyEnv());
        if (expected.isEmpty()) {
            QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
            QVERIFY(c->redis.tls.enabled);
            QCOMPARE(c->redis.tls.caFile, given.value(QStringLiteral("ca")).toString());
            QCOMPARE(c->redis.tls.certFile, given.value(QStringLiteral("cert")).toString());
            QCOMPARE(c->redis.tls.keyFile, given.value(QStringLiteral("key")).toString());
            QCOMPARE(c->redis.tls.serverName, given.value(QStringLiteral("serverName")).toString());
            QCOMPARE(c->redis.tls.insecure, given.value(QStringLiteral("insecure")).toBool());
            QCOMPARE(c->redis.tls.insecureWarning(c->redis.serverName()).isEmpty(),
                     !c->redis.tls.insecure);
            return;
        }
        QVERIFY(!c.hasValue());
        expected.replace(QStringLiteral("$DIR"), dir.path());
        QVERIFY2(c.error().toString().startsWith(expected), qPrintable(c.error().toString()));
        QVERIFY(!c.error().toString().contains(QLatin1String("hunter2")));
    }

    // #32 step 3: on a Redis Cluster every queue's keys and the lock's must carry a hash tag; the
    // refusal names the domain and the setting. On one node nothing is asked of them.
    void clusterHashTags_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("lockKey");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("expected"); // empty: accepted
        const QString cluster = QStringLiteral("redis+cluster://h1:7000,h2:7001");
        QTest::newRow("tagged prefix") << cluster << "{reclaim}:lock"
                                       << "{bull}"
                                       << "";
        QTest::newRow("one node, no tags") << "redis://h:6379/0"
                                           << "lock:job-recovery"
                                           << "bull"
                                           << "";
        QTest::newRow("prefix without a tag")
            << cluster << "{reclaim}:lock"
            << "bull"
            << "test.json: domains[0].keyPrefix: domain slide: queue slide-generation with prefix "
               "'bull' has no hash tag, and connections.redisUrl is a Redis Cluster";
        QTest::newRow("lock without a tag")
            << cluster << "lock:job-recovery"
            << "{bull}"
            << "test.json: run.lockKey: 'lock:job-recovery' has no hash tag, and "
               "connections.redisUrl is a Redis Cluster";
        QTest::newRow("empty tag is none") << cluster << "{}lock"
                                           << "{bull}"
                                           << "test.json: run.lockKey: '{}lock' has no hash tag";
    }

    void clusterHashTags()
    {
        QFETCH(QString, url);
        QFETCH(QString, lockKey);
        QFETCH(QString, prefix);
        QFETCH(QString, expected);
        const auto path = [](const QString &dotted) {
            return dotted.split(QLatin1Char('.'));
        };
        QJsonValue config =
            setPath(sample(), path(QStringLiteral("connections.redisUrl")), url, false);
        config = setPath(config, path(QStringLiteral("run.lockKey")), lockKey, false);
        const qsizetype domains = config[QStringLiteral("domains")].toArray().size();
        for (qsizetype i = 0; i < domains; ++i)
            config =
                setPath(config, path(QStringLiteral("domains.%1.keyPrefix").arg(i)), prefix, false);
        auto c = ConfigLoader::loadJson(QJsonDocument(config.toObject()).toJson(),
                                        QStringLiteral("test.json"), emptyEnv());
        if (expected.isEmpty()) {
            QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
            return;
        }
        QVERIFY(!c.hasValue());
        QVERIFY2(c.error().toString().startsWith(expected), qPrintable(c.error().toString()));
    }

    // connections.redisSentinel: the sentinels' own credentials, only with a sentinel URL, never
    // a user without its password, never quoted.
    void redisSentinel_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QJsonObject>("sentinel");
        QTest::addColumn<QString>("expected"); // empty: loads
        const QString url = QStringLiteral("redis+sentinel://:hunter2@s1,s2/mymaster");
        QTest::newRow("password") << url
                                  << QJsonObject{{QStringLiteral("password"),
                                                  QStringLiteral("sentinel-pw")}}
                                  << QString();
        QTest::newRow("ACL user, TLS")
            << QStringLiteral("rediss+sentinel://:hunter2@s1,s2/mymaster")
            << QJsonObject{{QStringLiteral("user"), QStringLiteral("watcher")},
                           {QStringLiteral("password"), QStringLiteral("sentinel-pw")}}
            << QString();
        QTest::newRow("not a sentinel url")
            << QStringLiteral("redis://:hunter2@127.0.0.1:6379/0")
            << QJsonObject{{QStringLiteral("password"), QStringLiteral("sentinel-pw")}}
            << "test.json: connections.redisSentinel: is set, but connections.redisUrl is not a "
               "redis[s]+sentinel:// URL";
        QTest::newRow("user without password")
            << url << QJsonObject{{QStringLiteral("user"), QStringLiteral("watcher")}}
            << "test.json: connections.redisSentinel.password: is required with "
               "connections.redisSentinel.user";
        QTest::newRow("misspelt key")
            << url << QJsonObject{{QStringLiteral("pass"), QStringLiteral("sentinel-pw")}}
            << "test.json: connections.redisSentinel.pass: unknown key";
    }

    void redisSentinel()
    {
        QFETCH(QString, url);
        QFETCH(QJsonObject, sentinel);
        QFETCH(QString, expected);
        QJsonObject config = sample();
        QJsonObject connections = config.value(QStringLiteral("connections")).toObject();
        connections[QStringLiteral("redisUrl")] = url;
        connections[QStringLiteral("redisSentinel")] = sentinel;
        config[QStringLiteral("connections")] = connections;
        auto c = ConfigLoader::loadJson(QJsonDocument(config).toJson(), QStringLiteral("test.json"),
                                        emptyEnv());
        if (expected.isEmpty()) {
            QVERIFY2(c.hasValue(), c ? "" : qPrintable(c.error().toString()));
            QVERIFY(c->redis.sentinel.has_value());
            QCOMPARE(c->redis.sentinel->user, sentinel.value(QStringLiteral("user")).toString());
            QCOMPARE(c->redis.sentinel->password,
                     sentinel.value(QStringLiteral("password")).toString());
            QCOMPARE(c->redis.password, QStringLiteral("hunter2")); // the master's, apart
            QVERIFY(!c->redis.redacted().contains(QLatin1String("sentinel-pw")));
            return;
        }
        QVERIFY(!c.hasValue());
        QVERIFY2(c.error().toString().startsWith(expected), qPrintable(c.error().toString()));
        QVERIFY(!c.error().toString().contains(QLatin1String("hunter2")));
        QVERIFY(!c.error().toString().contains(QLatin1String("sentinel-pw")));
    }

    void redactSecretsInFreeText()
    {
        QCOMPARE(redactSecrets(QStringLiteral("cannot reach postgresql://u:pw@h:1/d now")),
                 QStringLiteral("cannot reach postgresql://u:***@h:1/d now"));
        // #31 item 11: the forms an error quotes stay readable; a password that merely starts
        // with the word is still masked.
        for (const char *hint : {"redis[s]://[[user]:password@]host[:port][/database]",
                                 "unix://[[user]:password@]/path/redis.sock[?db=N]",
                                 "postgresql://user[:password]@host[:port]/database"})
            QCOMPARE(redactSecrets(QString::fromLatin1(hint)), QString::fromLatin1(hint));
        QCOMPARE(redactSecrets(QStringLiteral("redis://u:password1@h:6379/0")),
                 QStringLiteral("redis://u:***@h:6379/0"));
        QCOMPARE(redactSecrets(QStringLiteral("redis://:password@h:6379/0")),
                 QStringLiteral("redis://:***@h:6379/0"));
    }

    // #31 item 11: an unknown Redis scheme is answered with every form that works.
    void anUnknownRedisSchemeListsEveryForm()
    {
        auto c = loadEdited(QStringLiteral("connections.redisUrl"),
                            QStringLiteral("redis-cluster://h:1"));
        QVERIFY(!c.hasValue());
        const QString error = c.error().toString();
        for (const char *form :
             {"redis[s]://", "redis[s]+sentinel://", "unix://", "[[user]:password@]"})
            QVERIFY2(error.contains(QLatin1String(form)), qPrintable(error));
    }

private:
    QTemporaryDir m_tlsDir;
    bool m_certsMade = false;
};

QTEST_GUILESS_MAIN(TestConfigLoader)
#include "test_configloader.moc"
