// `reclaim --once` as an operator runs it: the built binary against the seeded sandbox, its
// --json report compared with the seeder's manifest, every documented exit code, a dry run that
// changes nothing anywhere, and no password in any output — not even when authentication fails.
#include "config/connectionurl.h"
#include "support/reclaimprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "worldsnapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <functional>

using namespace reclaim;
using namespace reclaim::test;

namespace {

const QByteArray kLockKey = QByteArrayLiteral("lock:job-recovery");

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

QString sampleConfigPath()
{
    return QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");
}

// Problems between a --json report and the manifest: verdicts and evidence of every candidate,
// no non-candidate, and exactly the expected actions with the given result.
QStringList reportProblems(const QJsonObject &report, const QJsonObject &manifest,
                           const QString &actionResult)
{
    QStringList problems;
    QHash<QString, QJsonObject> candidates; // "<domain>/<id>"
    for (const QJsonValue &d : report.value(QStringLiteral("domains")).toArray())
        for (const QJsonValue &c : d.toObject().value(QStringLiteral("candidates")).toArray())
            candidates.insert(str(d.toObject(), "name") + QLatin1Char('/') +
                                  str(c.toObject(), "id"),
                              c.toObject());
    QHash<QString, QJsonObject> actions;
    for (const QJsonValue &a : report.value(QStringLiteral("actions")).toArray())
        actions.insert(str(a.toObject(), "id"), a.toObject());

    int expectedCandidates = 0;
    int expectedActions = 0;
    for (const QJsonValue &value : manifest.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = value.toObject();
        const QString id = str(row, "domain") + QLatin1Char('/') + str(row, "id");
        const QString name = QStringLiteral("%1 [%2]").arg(id, str(row, "kind"));
        if (!row.value(QStringLiteral("candidate")).toBool()) {
            if (candidates.contains(id))
                problems << name + QStringLiteral(": not a candidate, but reported");
            continue;
        }
        ++expectedCandidates;
        const QJsonObject c = candidates.value(id);
        if (c.isEmpty()) {
            problems << name + QStringLiteral(": missing from the report");
            continue;
        }
        if (str(c, "verdict") != str(row, "expectedVerdict"))
            problems << QStringLiteral("%1: %2, expected %3 (%4)")
                            .arg(name, str(c, "verdict"), str(row, "expectedVerdict"),
                                 str(c, "summary"));
        const QString foundBy = str(row, "foundBy");
        if (!foundBy.isEmpty()) {
            bool seen = false;
            for (const QJsonValue &e : c.value(QStringLiteral("evidence")).toArray()) {
                const QJsonObject s = e.toObject();
                seen = seen || (str(s, "how") == foundBy && str(s, "queue") == str(row, "queue") &&
                                str(s, "jobId") == str(row, "bullJobId") &&
                                str(s, "state") == str(row, "expectedState"));
            }
            if (!seen)
                problems << QStringLiteral("%1: no %2 evidence of %3 in %4 as %5")
                                .arg(name, foundBy, str(row, "bullJobId"), str(row, "queue"),
                                     str(row, "expectedState"));
        }
        const QString kind = str(row, "expectedAction");
        if (kind.isEmpty()) {
            if (actions.contains(id))
                problems << name + QStringLiteral(": has an action, expected none");
            continue;
        }
        ++expectedActions;
        const QJsonObject a = actions.value(id);
        if (str(a, "kind") != kind || str(a, "result") != actionResult)
            problems << QStringLiteral("%1: action %2 %3 (%4), expected %5 %6")
                            .arg(name, str(a, "kind"), str(a, "result"), str(a, "resultDetail"),
                                 kind, actionResult);
    }
    if (candidates.size() != expectedCandidates)
        problems << QStringLiteral("%1 candidates reported, %2 expected")
                        .arg(candidates.size())
                        .arg(expectedCandidates);
    if (actions.size() != expectedActions)
        problems << QStringLiteral("%1 actions reported, %2 expected")
                        .arg(actions.size())
                        .arg(expectedActions);
    return problems;
}

} // namespace

class TestOnce : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    QJsonObject m_manifest;
    QString m_password; // the sandbox's real PostgreSQL password
    QTemporaryDir m_dir;

    Ran runReclaim(const QStringList &args, const QHash<QString, QString> &overrides = {})
    {
        return reclaim::test::runReclaim(m_env, QStringLiteral(RECLAIM_BINARY), args, overrides,
                                         120000);
    }

    Ran runOnce(const QStringList &extra = {}, const QHash<QString, QString> &overrides = {})
    {
        return runReclaim(QStringList{QStringLiteral("--once"), QStringLiteral("--json"),
                                      QStringLiteral("--config"), sampleConfigPath()} +
                              extra,
                          overrides);
    }

    QString writeConfig(const QString &name, const QByteArray &text)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text);
        return path;
    }

    static QByteArray editedSample(const std::function<void(QJsonObject &)> &edit)
    {
        QFile f(sampleConfigPath());
        if (!f.open(QIODevice::ReadOnly))
            return {};
        QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        edit(root);
        return QJsonDocument(root).toJson();
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        QVERIFY(m_dir.isValid());
        m_password = parsePostgresUrl(m_env.pgUrl)->password;
        QVERIFY(m_password.size() >= 8);
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 1, 1, false);
        QVERIFY(incident.ready());
        m_manifest = incident.manifest();
        dropExpiringKeys(m_env); // no worker is left: Redis now only changes when we change it
    }

    // The tests below leave the incident as seeded; the last one recovers it.

    void configErrorExitsTwo_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing file") << QStringLiteral("/nonexistent/reclaim.json") << QByteArray()
                                      << QStringLiteral("no such file");
        QTest::newRow("not JSON") << QStringLiteral("broken.json") << QByteArray("{ \"run\": ")
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("wrong type")
            << QStringLiteral("type.json") << editedSample([](QJsonObject &root) {
                   QJsonObject run = root.value(QStringLiteral("run")).toObject();
                   run.insert(QStringLiteral("scanPageSize"), QStringLiteral("lots"));
                   root.insert(QStringLiteral("run"), run);
               })
            << QStringLiteral("run.scanPageSize");
        QTest::newRow("misspelt key")
            << QStringLiteral("typo.json") << editedSample([](QJsonObject &root) {
                   QJsonArray domains = root.value(QStringLiteral("domains")).toArray();
                   QJsonObject video = domains.at(1).toObject();
                   video.insert(QStringLiteral("queus"), video.take(QStringLiteral("queues")));
                   domains[1] = video;
                   root.insert(QStringLiteral("domains"), domains);
               })
            << QStringLiteral("domains[1].queues");
        QTest::newRow("unknown time zone")
            << QStringLiteral("zone.json") << editedSample([](QJsonObject &root) {
                   QJsonObject run = root.value(QStringLiteral("run")).toObject();
                   run.insert(QStringLiteral("timeZone"), QStringLiteral("Mars/Olympus_Mons"));
                   root.insert(QStringLiteral("run"), run);
               })
            << QStringLiteral("run.timeZone: 'Mars/Olympus_Mons' is not a known time zone");
        // Issue 20: schema.table is accepted, a third part is not.
        QTest::newRow("table with three parts")
            << QStringLiteral("table.json") << editedSample([](QJsonObject &root) {
                   QJsonArray domains = root.value(QStringLiteral("domains")).toArray();
                   QJsonObject video = domains.at(1).toObject();
                   video.insert(QStringLiteral("table"), QStringLiteral("a.b.c"));
                   domains[1] = video;
                   root.insert(QStringLiteral("domains"), domains);
               })
            << QStringLiteral("domains[1].table: 'a.b.c' is not a table name: expected table or "
                              "schema.table");
        // The incident of issue 19: a 6 s lock and a 6 s PostgreSQL timeout.
        QTest::newRow("lock ttl shorter than the waits")
            << QStringLiteral("ttl.json") << editedSample([](QJsonObject &root) {
                   QJsonObject run = root.value(QStringLiteral("run")).toObject();
                   run.insert(QStringLiteral("lockTtlSeconds"), 6);
                   run.insert(QStringLiteral("postgresTimeoutMs"), 6000);
                   root.insert(QStringLiteral("run"), run);
               })
            << QStringLiteral("run.lockTtlSeconds: 6 s is too short: it must be at least 18 s, 3 "
                              "times the longest single wait of a run (run.postgresTimeoutMs "
                              "6000 ms, run.redisTimeoutMs 2000 ms)");
    }
    void configErrorExitsTwo()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const QString path = text.isEmpty() ? file : writeConfig(file, text);
        const Ran ran = runReclaim(
            {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path});
        QCOMPARE(ran.exitCode, 2);
        QVERIFY2(ran.err.contains(message.toUtf8()), ran.err.constData());
        QVERIFY(!redisKeyExists(m_env, kLockKey));
    }

    // A URL in the environment that cannot be right: exit 2 naming the variable and the real
    // problem, no password printed, nothing written.
    void badUrlExitsTwo_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("message");
        const QString pgUrl = QStringLiteral("postgresql://reclaim:%1@127.0.0.1:%2/reclaim");
        QTest::newRow("postgres port 70000")
            << QStringLiteral("RECLAIM_PG_URL") << pgUrl.arg(m_password, QStringLiteral("70000"))
            << QStringLiteral("$RECLAIM_PG_URL: port 70000 is out of range (1 to 65535)");
        QTest::newRow("redis port 70000")
            << QStringLiteral("RECLAIM_REDIS_URL")
            << QStringLiteral("redis://:%1@127.0.0.1:70000/0").arg(m_password)
            << QStringLiteral("$RECLAIM_REDIS_URL: port 70000 is out of range (1 to 65535)");
        QTest::newRow("redis port 0")
            << QStringLiteral("RECLAIM_REDIS_URL")
            << QStringLiteral("redis://:%1@127.0.0.1:0/0").arg(m_password)
            << QStringLiteral("$RECLAIM_REDIS_URL: port 0 is out of range (1 to 65535)");
        QTest::newRow("redis unknown scheme")
            << QStringLiteral("RECLAIM_REDIS_URL")
            << QStringLiteral("xyz://:%1@127.0.0.1:6379/0").arg(m_password)
            << QStringLiteral("$RECLAIM_REDIS_URL: unknown scheme \"xyz\"");
        QTest::newRow("redis missing host")
            << QStringLiteral("RECLAIM_REDIS_URL")
            << QStringLiteral("redis://:%1@/0").arg(m_password)
            << QStringLiteral("$RECLAIM_REDIS_URL: the host is missing");
    }
    void badUrlExitsTwo()
    {
        QFETCH(QString, variable);
        QFETCH(QString, url);
        QFETCH(QString, message);
        const auto rowsBefore = databaseRows(m_env);
        const Ran ran = runOnce({}, {{variable, url}});
        QCOMPARE(ran.exitCode, 2);
        QVERIFY2(ran.err.contains(message.toUtf8()), ran.err.constData());
        QVERIFY2(!ran.both().contains(m_password.toUtf8()), ran.both().constData());
        QVERIFY(!redisKeyExists(m_env, kLockKey));
        QVERIFY(differences(rowsBefore, databaseRows(m_env)).isEmpty());
    }

    bool reclaimSchemaExists()
    {
        return sql(m_env, QStringLiteral("SELECT to_regnamespace('reclaim') IS NOT NULL"))
            .value(0)
            .value(0)
            .toBool();
    }

    // Issue 18 item 3: on a database Reclaim has never written to, a run that cannot reach Redis
    // writes nothing to PostgreSQL either: the lock comes first, and Reclaim's schema is created
    // only by a writing run that holds it. Its one stderr line names the run's id (item 6).
    void redisUnreachableCreatesNoSchema()
    {
        sql(m_env, QStringLiteral("DROP SCHEMA IF EXISTS reclaim CASCADE"));
        QVERIFY(!reclaimSchemaExists());
        const Ran ran = runOnce({}, {{QStringLiteral("RECLAIM_REDIS_URL"),
                                      QStringLiteral("redis://127.0.0.1:%1/0").arg(closedPort())}});
        QCOMPARE(ran.exitCode, 4);
        const QJsonObject report = ran.json();
        QCOMPARE(str(report, "outcome"), QStringLiteral("skipped-unreachable"));
        QVERIFY2(!reclaimSchemaExists(), "the skipped run created Reclaim's schema");
        const QString runId = str(report, "runId");
        QVERIFY(!runId.isEmpty());
        QVERIFY2(ran.err.startsWith(
                     QStringLiteral("reclaim: run %1 skipped-unreachable: ").arg(runId).toUtf8()),
                 ran.err.constData());
        QCOMPARE(ran.err.count('\n'), 1);
    }

    void lockHeldExitsThree()
    {
        const QByteArray other("reclaim;host=other-host;pid=4242;since=2026-01-01T00:00:00.000Z;"
                               "nonce=00000000000000aa");
        auto conn = redis(m_env);
        QVERIFY(conn.command({QByteArrayLiteral("SET"), kLockKey, other, QByteArrayLiteral("PX"),
                              QByteArrayLiteral("60000")}));
        const auto rowsBefore = databaseRows(m_env);
        const Ran ran = runOnce();
        QCOMPARE(ran.exitCode, 3);
        const QJsonObject report = ran.json();
        QCOMPARE(str(report, "outcome"), QStringLiteral("skipped-lock-held"));
        QCOMPARE(str(report.value(QStringLiteral("lock")).toObject(), "token"),
                 QString::fromUtf8(other));
        QVERIFY2(ran.err.contains("other-host"), ran.err.constData());
        auto still = conn.command({QByteArrayLiteral("GET"), kLockKey});
        QVERIFY(still);
        QCOMPARE(still->string, other); // the holder's lock is left alone
        QVERIFY(differences(rowsBefore, databaseRows(m_env)).isEmpty());
        QVERIFY(!ran.both().contains(m_password.toUtf8()));
        conn.command({QByteArrayLiteral("DEL"), kLockKey});
        // Skipped without the lock: still nothing of Reclaim's own in PostgreSQL (issue 18).
        QVERIFY2(!reclaimSchemaExists(), "a run skipped for a held lock created Reclaim's schema");
    }

    void redisUnreachableExitsFour()
    {
        const QString secret =
            QStringLiteral("Redis-S3cret-") + QUuid::createUuid().toString(QUuid::Id128);
        const auto rowsBefore = databaseRows(m_env);
        const Ran ran = runOnce(
            {}, {{QStringLiteral("RECLAIM_REDIS_URL"),
                  QStringLiteral("redis://:%1@127.0.0.1:%2/0").arg(secret).arg(closedPort())}});
        QCOMPARE(ran.exitCode, 4);
        QCOMPARE(str(ran.json(), "outcome"), QStringLiteral("skipped-unreachable"));
        QVERIFY2(!ran.both().contains(secret.toUtf8()), ran.both().constData());
        QVERIFY(!ran.both().contains(m_password.toUtf8()));
        QVERIFY(differences(rowsBefore, databaseRows(m_env)).isEmpty());
    }

    void postgresUnreachableExitsFive()
    {
        const qint64 sizeBefore = redisDbSize(m_env);
        const auto redisBefore = redisContents(m_env);
        const Ran ran = runOnce({}, {{QStringLiteral("RECLAIM_PG_URL"),
                                      QStringLiteral("postgresql://reclaim:%1@127.0.0.1:%2/reclaim")
                                          .arg(m_password)
                                          .arg(closedPort())}});
        QCOMPARE(ran.exitCode, 5);
        QCOMPARE(str(ran.json(), "outcome"), QStringLiteral("failed"));
        QVERIFY2(!ran.both().contains(m_password.toUtf8()), ran.both().constData());
        QVERIFY(!redisKeyExists(m_env, kLockKey));
        // Issue 18 items 6 and 7: one stderr line for the one error, naming the run, with
        // libpq's reason and hint but none of QPSQL's own "Unable to connect" trailer.
        QCOMPARE(ran.err.count('\n'), 1);
        QVERIFY2(ran.err.startsWith(QStringLiteral("reclaim: run %1 failed: cannot connect to "
                                                   "PostgreSQL")
                                        .arg(str(ran.json(), "runId"))
                                        .toUtf8()),
                 ran.err.constData());
        QVERIFY2(ran.err.contains("Connection refused"), ran.err.constData());
        QVERIFY2(!ran.err.contains("QPSQL"), ran.err.constData());
        QCOMPARE(str(ran.json(), "outcomeDetail").count(QLatin1Char('\n')), 0);
        QCOMPARE(redisDbSize(m_env), sizeBefore);
        QVERIFY(differences(redisBefore, redisContents(m_env)).isEmpty());
    }

    // The password of RECLAIM_PG_URL never reaches stdout or stderr, even when the server
    // rejects it and the driver's error is passed on.
    void passwordNeverPrinted_data()
    {
        QTest::addColumn<bool>("json");
        QTest::newRow("--json") << true;
        QTest::newRow("text") << false;
    }
    void passwordNeverPrinted()
    {
        QFETCH(bool, json);
        const auto pg = parsePostgresUrl(m_env.pgUrl);
        const QString wrong = QStringLiteral("Wr0ng-") + QUuid::createUuid().toString(QUuid::Id128);
        const QString url = QStringLiteral("postgresql://%1:%2@%3:%4/%5")
                                .arg(pg->user, wrong, pg->host)
                                .arg(pg->port)
                                .arg(pg->database);
        QStringList args{QStringLiteral("--once"), QStringLiteral("--config"), sampleConfigPath()};
        if (json)
            args << QStringLiteral("--json");
        const Ran ran = runReclaim(args, {{QStringLiteral("RECLAIM_PG_URL"), url}});
        QCOMPARE(ran.exitCode, 5);
        // The authentication failure itself was reached and reported...
        QVERIFY2(ran.both().contains("password authentication failed"), ran.both().constData());
        // ...without the password that failed, or the real one.
        QVERIFY2(!ran.both().contains(wrong.toUtf8()), ran.both().constData());
        QVERIFY(!ran.both().contains(m_password.toUtf8()));
        QVERIFY(!redisKeyExists(m_env, kLockKey));
    }

    void dryRunChangesNothing()
    {
        const qint64 sizeBefore = redisDbSize(m_env);
        const auto redisBefore = redisContents(m_env);
        const auto rowsBefore = databaseRows(m_env);
        const Ran ran = runOnce({QStringLiteral("--dry-run")});
        QCOMPARE(ran.exitCode, 0);
        const QJsonObject report = ran.json();
        QVERIFY2(!report.isEmpty(), ran.out.constData());
        QVERIFY(report.value(QStringLiteral("dryRun")).toBool());
        QCOMPARE(str(report, "outcome"), QStringLiteral("completed"));
        QCOMPARE(str(report.value(QStringLiteral("lock")).toObject(), "state"),
                 QStringLiteral("not-attempted"));
        const QStringList problems = reportProblems(report, m_manifest, QStringLiteral("pending"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(redisDbSize(m_env), sizeBefore);
        QStringList changed = differences(redisBefore, redisContents(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        changed = differences(rowsBefore, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        QVERIFY(!ran.both().contains(m_password.toUtf8()));
    }

    // A report that cannot be written (stdout on a full disk) is not a success: the run says
    // so on stderr and exits 5, never 0 with a cut document.
    void aReportThatCannotBeWrittenIsNotASuccess()
    {
        const QString script = QStringLiteral("exec \"$0\" \"$@\" > /dev/full");
        for (const QStringList &form : {QStringList{QStringLiteral("--json")}, QStringList{}}) {
            const Ran ran = reclaim::test::runReclaim(
                m_env, QStringLiteral("/bin/sh"),
                QStringList{QStringLiteral("-c"), script, QStringLiteral(RECLAIM_BINARY),
                            QStringLiteral("--once"), QStringLiteral("--dry-run"),
                            QStringLiteral("--config"), sampleConfigPath()} +
                    form,
                {}, 120000);
            QVERIFY2(ran.exitCode == 5, ran.err.constData());
            QVERIFY2(ran.err.contains("its report could not be written to stdout"),
                     ran.err.constData());
        }
    }

    // #29, the first part of the guard: a misspelt queue name in a FAIL domain. The queue has
    // no trace in Redis, so every stale row of the domain is ABSENT; before the guard each was
    // marked FAILED. Now nothing is written, every action is held with the reason, exit 10.
    void aMisspeltQueueHoldsItsDomainAndWritesNothing()
    {
        const QString path = writeConfig(
            QStringLiteral("misspelt.json"), editedSample([](QJsonObject &root) {
                QJsonArray kept;
                for (const QJsonValue &d : root.value(QStringLiteral("domains")).toArray()) {
                    QJsonObject o = d.toObject();
                    if (o.value(QStringLiteral("name")).toString() != QLatin1String("image"))
                        continue;
                    o.insert(QStringLiteral("queues"), QJsonArray{QStringLiteral("image-rendr")});
                    kept.append(o);
                }
                root.insert(QStringLiteral("domains"), kept);
            }));
        const auto rows = [&] {
            return sql(m_env, QStringLiteral("SELECT id, status, \"updatedAt\"::text FROM "
                                             "\"ImageJob\" ORDER BY id"));
        };
        const auto before = rows();
        const Ran ran = runReclaim(
            {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path});
        QCOMPARE(ran.exitCode, 10);
        QCOMPARE(rows(), before);
        const QJsonObject report = ran.json();
        QCOMPARE(str(report, "outcome"), QStringLiteral("completed"));
        const QJsonObject image =
            report.value(QStringLiteral("domains")).toArray().at(0).toObject();
        QVERIFY2(str(image, "held").contains(QLatin1String("image-rendr")) &&
                     str(image, "held").contains(QLatin1String("no trace in Redis")),
                 qPrintable(str(image, "held")));
        const QJsonArray actions = report.value(QStringLiteral("actions")).toArray();
        QVERIFY(!actions.isEmpty());
        for (const QJsonValue &v : actions) {
            const QJsonObject a = v.toObject();
            QCOMPARE(str(a, "kind"), QStringLiteral("FAIL"));
            QCOMPARE(str(a, "result"), QStringLiteral("pending"));
            QCOMPARE(str(a, "held"), str(image, "held"));
        }
        QVERIFY2(ran.err.contains("nothing of image executed"), ran.err.constData());
        QVERIFY(!redisKeyExists(m_env, kLockKey));
    }

    // #29: fail under approve, requeue under observe, in every domain: nothing runs; each FAIL
    // waits for an operator with its policy named, each REQUEUE is only reported; exit 10.
    void aFailUnderApproveIsHeldAndWritesNothing()
    {
        const QString path = writeConfig(
            QStringLiteral("approve.json"), editedSample([](QJsonObject &root) {
                QJsonArray domains;
                for (const QJsonValue &d : root.value(QStringLiteral("domains")).toArray()) {
                    QJsonObject o = d.toObject();
                    o.insert(QStringLiteral("policy"),
                             QJsonObject{{QStringLiteral("requeue"), QStringLiteral("observe")},
                                         {QStringLiteral("fail"), QStringLiteral("approve")}});
                    domains.append(o);
                }
                root.insert(QStringLiteral("domains"), domains);
            }));
        const auto before = databaseRows(m_env);
        const Ran ran = runReclaim(
            {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path});
        QCOMPARE(ran.exitCode, 10);
        const QStringList changed = differences(before, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        const QJsonArray actions = ran.json().value(QStringLiteral("actions")).toArray();
        int fails = 0;
        int requeues = 0;
        for (const QJsonValue &v : actions) {
            const QJsonObject a = v.toObject();
            QCOMPARE(str(a, "result"), QStringLiteral("pending"));
            if (str(a, "kind") == QLatin1String("FAIL")) {
                ++fails;
                QCOMPARE(str(a, "policy"), QStringLiteral("approve"));
                QVERIFY2(str(a, "held").contains(QLatin1String("policy fail: approve")),
                         qPrintable(str(a, "held")));
            } else {
                ++requeues;
                QCOMPARE(str(a, "policy"), QStringLiteral("observe"));
                QVERIFY(!a.contains(QStringLiteral("held")));
            }
        }
        QVERIFY(fails > 0 && requeues > 0);
        QVERIFY2(ran.err.contains("wait for an operator's approval"), ran.err.constData());
    }

    // #29: the guard's share limit on the real incident: with maxAbsentShare 0 from one
    // candidate, every domain with an orphan is held, nothing is written, exit 10.
    void aMassWriteIsHeldByTheGuard()
    {
        const QString path =
            writeConfig(QStringLiteral("guard.json"), editedSample([](QJsonObject &root) {
                            QJsonObject run = root.value(QStringLiteral("run")).toObject();
                            run.insert(QStringLiteral("guard"),
                                       QJsonObject{{QStringLiteral("maxAbsentShare"), 0},
                                                   {QStringLiteral("minCandidates"), 1}});
                            root.insert(QStringLiteral("run"), run);
                        }));
        const auto before = databaseRows(m_env);
        const Ran ran = runReclaim(
            {QStringLiteral("--once"), QStringLiteral("--json"), QStringLiteral("--config"), path});
        QCOMPARE(ran.exitCode, 10);
        const QStringList changed = differences(before, databaseRows(m_env));
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        const QJsonObject report = ran.json();
        int held = 0;
        for (const QJsonValue &d : report.value(QStringLiteral("domains")).toArray()) {
            const QJsonObject o = d.toObject();
            if (!o.contains(QStringLiteral("held")))
                continue;
            ++held;
            QCOMPARE(str(o, "heldLimit"), QStringLiteral("absent-share"));
            QVERIFY2(str(o, "held").contains(QLatin1String("run.guard.maxAbsentShare (0%)")),
                     qPrintable(str(o, "held")));
        }
        QVERIFY(held > 0);
        for (const QJsonValue &v : report.value(QStringLiteral("actions")).toArray())
            QVERIFY2(v.toObject().contains(QStringLiteral("held")),
                     qPrintable(str(v.toObject(), "id")));
        QVERIFY2(ran.err.contains("nothing of"), ran.err.constData());
    }

    void onceRecoversTheIncident()
    {
        const Ran ran = runOnce();
        QCOMPARE(ran.exitCode, 0);
        const QJsonObject report = ran.json();
        QVERIFY2(!report.isEmpty(), ran.out.constData());
        QCOMPARE(str(report, "outcome"), QStringLiteral("completed"));
        QCOMPARE(str(report, "trigger"), QStringLiteral("once"));
        QVERIFY(report.value(QStringLiteral("lock"))
                    .toObject()
                    .value(QStringLiteral("released"))
                    .toBool());
        const QStringList problems = reportProblems(report, m_manifest, QStringLiteral("applied"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY(!ran.both().contains(m_password.toUtf8()));
        QVERIFY(!redisKeyExists(m_env, kLockKey));

        // An independent check with plain Redis commands and SQL: the manifest's "after" state.
        const QString manifestPath = m_dir.filePath(QStringLiteral("manifest.json"));
        QFile f(manifestPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(m_manifest).toJson());
        f.close();
        const QByteArray out =
            runNode(m_env, QStringLiteral("check-manifest.js"),
                    {QStringLiteral("--manifest"), manifestPath, QStringLiteral("--phase"),
                     QStringLiteral("after"), QStringLiteral("--quiet")});
        QVERIFY2(!QTest::currentTestFailed(), out.constData());
    }

    // A domain whose candidates cannot be read (its table renamed away, as a migration or a lost
    // grant leaves it) is not a success: exit 7, the JSON and stderr name it, and the other
    // domains are still looked at (#13 item 3).
    void unreadDomainExitsSeven()
    {
        sql(m_env, QStringLiteral("ALTER TABLE \"VideoJob\" RENAME TO \"VideoJobAway\""));
        const Ran ran = runOnce();
        sql(m_env, QStringLiteral("ALTER TABLE \"VideoJobAway\" RENAME TO \"VideoJob\""));
        QCOMPARE(ran.exitCode, 7);
        const QJsonObject report = ran.json();
        QCOMPARE(str(report, "outcome"), QStringLiteral("completed"));
        QCOMPARE(report.value(QStringLiteral("unreadDomains")).toArray(),
                 QJsonArray{QStringLiteral("video")});
        int domainsWithoutError = 0;
        for (const QJsonValue &d : report.value(QStringLiteral("domains")).toArray()) {
            const QJsonObject o = d.toObject();
            if (str(o, "name") == QLatin1String("video"))
                QVERIFY2(str(o, "candidateError").contains(QLatin1String("VideoJob")),
                         qPrintable(str(o, "candidateError")));
            else
                domainsWithoutError += o.contains(QStringLiteral("candidateError")) ? 0 : 1;
        }
        QCOMPARE(domainsWithoutError, 4);
        QVERIFY2(ran.err.contains("could not be read") && ran.err.contains("video"),
                 ran.err.constData());
    }

    // Reclaim's schema already exists after the run above, so every "IF NOT EXISTS" of the next
    // run's migration makes PostgreSQL send a NOTICE; none may reach stderr (#18 item 3).
    void serverNoticesNeverReachStderr()
    {
        const Ran ran = runOnce();
        QCOMPARE(ran.exitCode, 0);
        QVERIFY2(!ran.err.contains("NOTICE"), ran.err.constData());
        QVERIFY2(!ran.err.contains("already exists"), ran.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestOnce)
#include "test_once.moc"
