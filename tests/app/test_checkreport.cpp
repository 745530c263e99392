// The preflight's report without servers: the worst status decides the result and the exit code,
// the JSON form keeps its documented shape, the text form gives every item one line (and its
// fix), secrets are redacted on the way in, and the small parsers the checks rely on.
#include "checkprinter.h"
#include "commandline.h"
#include "exitcodes.h"
#include "preflight/checkreport.h"
#include "preflight/postgrescheck.h"
#include "preflight/queuecheck.h"
#include "preflight/redischeck.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace reclaim;

Q_DECLARE_METATYPE(reclaim::CheckStatus)

class TestCheckReport : public QObject
{
    Q_OBJECT
private slots:
    void resultAndExitCode_data()
    {
        QTest::addColumn<QList<CheckStatus>>("statuses");
        QTest::addColumn<QString>("result");
        QTest::addColumn<int>("exitCode");
        using S = CheckStatus;
        QTest::newRow("all pass") << QList<S>{S::Pass, S::Pass} << QStringLiteral("pass")
                                  << exitcode::Ran;
        QTest::newRow("one warn") << QList<S>{S::Pass, S::Warn, S::Pass} << QStringLiteral("warn")
                                  << exitcode::CheckWarned;
        QTest::newRow("warn and fail") << QList<S>{S::Warn, S::Fail, S::Pass}
                                       << QStringLiteral("fail") << exitcode::CheckFailed;
        QTest::newRow("fail first")
            << QList<S>{S::Fail, S::Pass} << QStringLiteral("fail") << exitcode::CheckFailed;
        // Nothing checked is not "all fine".
        QTest::newRow("no items") << QList<S>{} << QStringLiteral("fail") << exitcode::CheckFailed;
    }
    void resultAndExitCode()
    {
        QFETCH(QList<CheckStatus>, statuses);
        QFETCH(QString, result);
        QFETCH(int, exitCode);
        CheckReport r;
        for (qsizetype i = 0; i < statuses.size(); ++i)
            r.add(QStringLiteral("item%1").arg(i), statuses.at(i), QStringLiteral("seen"));
        QCOMPARE(CheckReport::statusName(r.result()), result);
        QCOMPARE(exitCodeForCheck(r), exitCode);
        QCOMPARE(r.toJson().value(QStringLiteral("result")).toString(), result);
    }

    void exitCodesAreDistinctFromTheRunsOnes()
    {
        const QList<int> others{exitcode::Ran,
                                exitcode::Usage,
                                exitcode::ConfigError,
                                exitcode::LockHeld,
                                exitcode::RedisUnreachable,
                                exitcode::RunFailed,
                                exitcode::ServeFailed,
                                exitcode::DomainUnread};
        QVERIFY(!others.contains(exitcode::CheckWarned));
        QVERIFY(!others.contains(exitcode::CheckFailed));
        QVERIFY(exitcode::CheckWarned != exitcode::CheckFailed);
    }

    void jsonHasTheDocumentedShape()
    {
        CheckReport r;
        r.elapsedMs = 42;
        r.add(QStringLiteral("redis.maxmemory-policy"), CheckStatus::Fail,
              QStringLiteral("maxmemory-policy is allkeys-lru"),
              QStringLiteral("CONFIG SET maxmemory-policy noeviction"));
        r.add(QStringLiteral("config"), CheckStatus::Pass, QStringLiteral("ok"));
        const QJsonObject j = r.toJson();
        QCOMPARE(j.value(QStringLiteral("version")).toInt(), 1);
        QCOMPARE(j.value(QStringLiteral("result")).toString(), QStringLiteral("fail"));
        QCOMPARE(j.value(QStringLiteral("elapsedMs")).toInteger(), 42);
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("elapsedMs"), QStringLiteral("items"),
                                    QStringLiteral("result"), QStringLiteral("version")}));
        const QJsonArray items = j.value(QStringLiteral("items")).toArray();
        QCOMPARE(items.size(), 2);
        const QJsonObject first = items.first().toObject();
        QStringList itemKeys = first.keys();
        itemKeys.sort();
        QCOMPARE(itemKeys, (QStringList{QStringLiteral("fix"), QStringLiteral("id"),
                                        QStringLiteral("status"), QStringLiteral("summary")}));
        QCOMPARE(first.value(QStringLiteral("id")).toString(),
                 QStringLiteral("redis.maxmemory-policy"));
        QCOMPARE(first.value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
        QCOMPARE(first.value(QStringLiteral("fix")).toString(),
                 QStringLiteral("CONFIG SET maxmemory-policy noeviction"));
        // An item without a fix still has the key, empty: a pipeline can read it unconditionally.
        QCOMPARE(items.at(1).toObject().value(QStringLiteral("fix")).toString(), QString());
    }

    void textHasOneLinePerItemAndItsFix()
    {
        CheckReport r;
        r.elapsedMs = 7;
        r.add(QStringLiteral("config"), CheckStatus::Pass, QStringLiteral("reclaim.json"));
        r.add(QStringLiteral("lock.holder"), CheckStatus::Warn, QStringLiteral("held by x"),
              QStringLiteral("give it its own run.lockKey"));
        r.add(QStringLiteral("redis.version"), CheckStatus::Fail, QStringLiteral("Redis 6.0.1"),
              QStringLiteral("upgrade"));
        const QStringList lines = formatCheckReport(r).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 6); // 3 items, 2 fixes, the result
        QVERIFY(lines.at(0).startsWith(QLatin1String("PASS  config")));
        QVERIFY(lines.at(0).endsWith(QLatin1String("reclaim.json")));
        QVERIFY(lines.at(1).startsWith(QLatin1String("WARN  lock.holder")));
        QVERIFY(lines.at(2).trimmed().startsWith(QLatin1String("fix: give it its own")));
        QVERIFY(lines.at(3).startsWith(QLatin1String("FAIL  redis.version")));
        QCOMPARE(lines.at(5), QStringLiteral("FAIL: 3 items, 1 passed, 1 warned, 1 failed (7 ms)"));
    }

    void couldNotCheckIsAFailure()
    {
        CheckReport r;
        r.couldNotCheck({QStringLiteral("a"), QStringLiteral("b")},
                        QStringLiteral("Redis is unreachable"));
        QCOMPARE(r.items.size(), 2);
        for (const CheckItem &i : r.items) {
            QCOMPARE(i.status, CheckStatus::Fail);
            QVERIFY(i.summary.startsWith(QLatin1String("could not check: Redis is unreachable")));
        }
    }

    void urlPasswordsAreRedactedOnTheWayIn()
    {
        CheckReport r;
        r.add(QStringLiteral("x"), CheckStatus::Fail,
              QStringLiteral("cannot connect to redis://app:s3cr3t-pw@10.0.0.1:6379/0"),
              QStringLiteral("try postgresql://me:s3cr3t-pw@db/app"));
        const QString all =
            formatCheckReport(r) + QString::fromUtf8(QJsonDocument(r.toJson()).toJson());
        QVERIFY2(!all.contains(QLatin1String("s3cr3t-pw")), qPrintable(all));
        QVERIFY(all.contains(QLatin1String("app:***@")));
    }

    void hashTags_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<bool>("tagged");
        QTest::newRow("plain") << QStringLiteral("bull") << false;
        QTest::newRow("braced") << QStringLiteral("{bull}") << true;
        QTest::newRow("inside") << QStringLiteral("app:{jobs}") << true;
        QTest::newRow("empty braces") << QStringLiteral("{}bull") << false;
        QTest::newRow("open only") << QStringLiteral("{bull") << false;
        QTest::newRow("close before open") << QStringLiteral("}bull{") << false;
    }
    void hashTags()
    {
        QFETCH(QString, prefix);
        QFETCH(bool, tagged);
        QCOMPARE(hasHashTag(prefix), tagged);
    }

    void redisInfoAndVersion()
    {
        const auto info = parseInfo("# Server\r\nredis_version:7.0.15\r\n"
                                    "# Memory\r\nmaxmemory_policy:noeviction\r\n"
                                    "# Cluster\r\ncluster_enabled:0\r\n");
        QCOMPARE(info.value(QStringLiteral("redis_version")), QStringLiteral("7.0.15"));
        QCOMPARE(info.value(QStringLiteral("maxmemory_policy")), QStringLiteral("noeviction"));
        QCOMPARE(info.value(QStringLiteral("cluster_enabled")), QStringLiteral("0"));
        QCOMPARE(parseVersion(QStringLiteral("7.0.15")), std::make_optional(qMakePair(7, 0)));
        QVERIFY(*parseVersion(QStringLiteral("6.0.9")) < qMakePair(6, 2));
        QVERIFY(!parseVersion(QStringLiteral("unstable")));
    }

    void commandLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error"); // empty: accepted as --check
        QTest::addColumn<bool>("json");
        QTest::newRow("check") << QStringList{QStringLiteral("--check")} << QString() << false;
        QTest::newRow("check json")
            << QStringList{QStringLiteral("--check"), QStringLiteral("--json")} << QString()
            << true;
        QTest::newRow("check and daemon")
            << QStringList{QStringLiteral("--check"), QStringLiteral("--daemon")}
            << QStringLiteral("cannot be combined") << false;
        QTest::newRow("check and once")
            << QStringList{QStringLiteral("--once"), QStringLiteral("--check")}
            << QStringLiteral("cannot be combined") << false;
    }
    void commandLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QFETCH(bool, json);
        const CommandLineResult r = parseCommandLine(QStringList{QStringLiteral("reclaim")} + args);
        if (!error.isEmpty()) {
            QVERIFY(!r.options);
            QVERIFY2(r.error.contains(error), qPrintable(r.error));
            return;
        }
        QVERIFY2(r.options, qPrintable(r.error));
        QVERIFY(r.options->mode == CommandLine::Mode::Check);
        QCOMPARE(r.options->json, json);
    }

    void compositeIndexStatementQuotesEachPart()
    {
        DomainConfig d;
        d.table = QStringLiteral("acme.render_jobs");
        d.types = {QStringLiteral("A")};
        d.columns.type = QStringLiteral("type");
        QCOMPARE(compositeIndexStatement(d),
                 QStringLiteral("CREATE INDEX CONCURRENTLY \"render_jobs_status_updatedAt_idx\" ON "
                                "\"acme\".\"render_jobs\" (\"status\", \"type\", \"updatedAt\")"));
    }
};

QTEST_GUILESS_MAIN(TestCheckReport)
#include "test_checkreport.moc"
