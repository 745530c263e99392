// Held actions end to end (#29) through the built binary against the sandbox: a run holds what
// its policy or the guard says; later runs hold it once, supersede it when its row moves on; an
// operator approves (checked again, run once even by two racing approvers) or rejects it from
// the command line; a FLUSHALL holds everything, and approving each domain recovers it all with
// one audit row per action.
#include "config/configloader.h"
#include "support/reclaimprocess.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"
#include "worldsnapshot.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

constexpr int kRows = 8;

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

QString rowId(int i)
{
    return QStringLiteral("hj_%1").arg(i);
}

} // namespace

class TestHeld : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;
    QTemporaryDir m_dir;
    QString m_imageConfig; // only the image domain, its FAIL actions under approve

    Ran reclaimRun(const QStringList &args)
    {
        return runReclaim(m_env, QStringLiteral(RECLAIM_BINARY), args);
    }
    Ran onImage(QStringList args)
    {
        return reclaimRun(args << QStringLiteral("--config") << m_imageConfig);
    }

    QString writeConfig(const QString &name, const std::function<void(QJsonObject &)> &edit)
    {
        QFile in(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
        if (!in.open(QIODevice::ReadOnly))
            return {};
        QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
        edit(root);
        const QString path = m_dir.filePath(name);
        QFile out(path);
        if (out.open(QIODevice::WriteOnly))
            out.write(QJsonDocument(root).toJson());
        return path;
    }

    // The held entries `--held --json` lists, by row id.
    QHash<QString, QJsonObject> listed()
    {
        const Ran ran = onImage({QStringLiteral("--held"), QStringLiteral("--json")});
        QHash<QString, QJsonObject> out;
        if (ran.exitCode != 0)
            return out;
        for (const QJsonValue &v : ran.json().value(QStringLiteral("held")).toArray())
            out.insert(str(v.toObject(), "rowId"), v.toObject());
        return out;
    }

    QString status(const QString &row)
    {
        const auto r =
            sql(m_env, QStringLiteral("SELECT status FROM \"ImageJob\" WHERE id = ?"), {row});
        return r.isEmpty() ? QString() : r.first().first().toString();
    }

    int appliedAudits(const QString &domain, const QString &row)
    {
        return sql(m_env,
                   QStringLiteral("SELECT count(*) FROM reclaim.audit WHERE domain = ? AND "
                                  "row_id = ? AND result = 'applied'"),
                   {domain, row})
            .first()
            .first()
            .toInt();
    }

    QString heldState(qint64 id)
    {
        const auto r =
            sql(m_env, QStringLiteral("SELECT state FROM reclaim.held_action WHERE id = ?"), {id});
        return r.isEmpty() ? QString() : r.first().first().toString();
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        QVERIFY(m_dir.isValid());
        resetSandbox(m_env);
        migrate(m_env);
        // kRows image jobs QUEUED two hours ago whose queue entries are gone: each an orphan
        // with no restore rule, so a FAIL.
        for (int i = 0; i < kRows; ++i) {
            sql(m_env,
                QStringLiteral("INSERT INTO \"Image\" (id, status) VALUES (?, 'PROCESSING')"),
                {QStringLiteral("img_%1").arg(i)});
            sql(m_env,
                QStringLiteral("INSERT INTO \"ImageJob\" (id, \"imageId\", status, \"updatedAt\") "
                               "VALUES (?, ?, 'QUEUED', now() - interval '2 hours')"),
                {rowId(i), QStringLiteral("img_%1").arg(i)});
        }
        m_imageConfig = writeConfig(QStringLiteral("image.json"), [](QJsonObject &root) {
            QJsonArray kept;
            for (const QJsonValue &d : root.value(QStringLiteral("domains")).toArray()) {
                QJsonObject o = d.toObject();
                if (o.value(QStringLiteral("name")).toString() != QLatin1String("image"))
                    continue;
                o.insert(QStringLiteral("policy"),
                         QJsonObject{{QStringLiteral("fail"), QStringLiteral("approve")}});
                kept.append(o);
            }
            root.insert(QStringLiteral("domains"), kept);
        });
        auto config = ConfigLoader::loadFile(m_imageConfig, m_env.processEnvironment());
        QVERIFY2(config.hasValue(), config ? "" : qPrintable(config.error().toString()));
        openAppQueues(m_env, *config); // the app's queue exists: only the policy holds
    }

    // Two runs: every FAIL held once, with the same ids; the second run only confirms them.
    void heldOnceAcrossRuns()
    {
        const Ran first = onImage({QStringLiteral("--once"), QStringLiteral("--json")});
        QCOMPARE(first.exitCode, 10);
        const auto held = listed();
        QCOMPARE(held.size(), kRows);
        for (const QJsonValue &v : first.json().value(QStringLiteral("actions")).toArray()) {
            const QJsonObject a = v.toObject();
            QCOMPARE(str(a, "result"), QStringLiteral("pending"));
            QCOMPARE(a.value(QStringLiteral("heldId")).toInteger(),
                     held.value(str(a, "rowId")).value(QStringLiteral("id")).toInteger());
        }
        const Ran second = onImage({QStringLiteral("--once"), QStringLiteral("--json")});
        QCOMPARE(second.exitCode, 10);
        const auto again = listed();
        QCOMPARE(again.size(), kRows);
        for (auto it = held.cbegin(); it != held.cend(); ++it) {
            QCOMPARE(again.value(it.key()).value(QStringLiteral("id")),
                     it.value().value(QStringLiteral("id")));
            QCOMPARE(str(again.value(it.key()), "lastRunId"), str(second.json(), "runId"));
            QCOMPARE(str(again.value(it.key()), "heldLimit"), QStringLiteral("policy"));
        }
        const auto entries = sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.held_action"));
        QCOMPARE(entries.first().first().toInt(), kRows);
        for (int i = 0; i < kRows; ++i)
            QCOMPARE(status(rowId(i)), QStringLiteral("QUEUED"));
        // The text listing names the group and the way out.
        const Ran text = onImage({QStringLiteral("--held")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("held by its policy") && text.out.contains("reclaim --approve"),
                 text.out.constData());
    }

    // A worker updates the row between the hold and the approval: superseded, not executed.
    void anApprovalOfARowThatMovedOnIsSuperseded()
    {
        const qint64 id = listed().value(rowId(0)).value(QStringLiteral("id")).toInteger();
        sql(m_env,
            QStringLiteral("UPDATE \"ImageJob\" SET \"updatedAt\" = now() - interval "
                           "'90 minutes' WHERE id = ?"),
            {rowId(0)});
        const Ran ran =
            onImage({QStringLiteral("--approve"), QString::number(id), QStringLiteral("--json")});
        QCOMPARE(ran.exitCode, 11);
        const QJsonObject d =
            ran.json().value(QStringLiteral("decisions")).toArray().first().toObject();
        QCOMPARE(str(d, "outcome"), QStringLiteral("superseded"));
        QVERIFY2(str(d, "detail").contains(QLatin1String("moved on")),
                 qPrintable(str(d, "detail")));
        QCOMPARE(status(rowId(0)), QStringLiteral("QUEUED"));
        QCOMPARE(appliedAudits(QStringLiteral("image"), rowId(0)), 0);
        QCOMPARE(heldState(id), QStringLiteral("superseded"));
    }

    // A run that sees a held row moved on supersedes its entry and holds the row anew.
    void aRunSupersedesWhatMovedOn()
    {
        const qint64 old = listed().value(rowId(1)).value(QStringLiteral("id")).toInteger();
        sql(m_env,
            QStringLiteral("UPDATE \"ImageJob\" SET \"updatedAt\" = now() - interval "
                           "'80 minutes' WHERE id = ?"),
            {rowId(1)});
        QCOMPARE(onImage({QStringLiteral("--once")}).exitCode, 10);
        QCOMPARE(heldState(old), QStringLiteral("superseded"));
        const auto detail = sql(m_env,
                                QStringLiteral("SELECT state_detail FROM reclaim.held_action "
                                               "WHERE id = ?"),
                                {old});
        QVERIFY2(detail.first().first().toString().contains(QLatin1String("planned FAIL on the "
                                                                          "row as QUEUED")),
                 qPrintable(detail.first().first().toString()));
        const qint64 fresh = listed().value(rowId(1)).value(QStringLiteral("id")).toInteger();
        QVERIFY(fresh != 0 && fresh != old);
        const auto events = sql(m_env,
                                QStringLiteral("SELECT state FROM reclaim.held_event WHERE "
                                               "held_id = ? ORDER BY id"),
                                {old});
        QCOMPARE(events.size(), 2);
        QCOMPARE(events.at(0).first().toString(), QStringLiteral("held"));
        QCOMPARE(events.at(1).first().toString(), QStringLiteral("superseded"));
    }

    // Two operators approve the same action at once: it runs once, the other hears who ran it.
    void twoApproversRunItOnce()
    {
        const qint64 id = listed().value(rowId(2)).value(QStringLiteral("id")).toInteger();
        const QStringList args{QStringLiteral("--approve"), QString::number(id),
                               QStringLiteral("--json"), QStringLiteral("--config"), m_imageConfig};
        auto a = startReclaim(m_env, QStringLiteral(RECLAIM_BINARY), args);
        auto b = startReclaim(m_env, QStringLiteral(RECLAIM_BINARY), args);
        const Ran ra = finishReclaim(*a);
        const Ran rb = finishReclaim(*b);
        QSet<int> codes{ra.exitCode, rb.exitCode};
        QCOMPARE(codes, (QSet<int>{0, 11}));
        const Ran &loser = ra.exitCode == 11 ? ra : rb;
        const QJsonObject d =
            loser.json().value(QStringLiteral("decisions")).toArray().first().toObject();
        QCOMPARE(str(d, "outcome"), QStringLiteral("already-taken"));
        QVERIFY2(str(d, "detail").startsWith(QLatin1String("already ")),
                 qPrintable(str(d, "detail")));
        QCOMPARE(status(rowId(2)), QStringLiteral("FAILED"));
        QCOMPARE(appliedAudits(QStringLiteral("image"), rowId(2)), 1);
        QCOMPARE(heldState(id), QStringLiteral("executed"));
    }

    // Rejected: recorded with the operator's reason, and no later run holds it again.
    void aRejectedActionIsNotHeldAgain()
    {
        const qint64 id = listed().value(rowId(3)).value(QStringLiteral("id")).toInteger();
        const Ran ran = onImage({QStringLiteral("--reject"), QString::number(id),
                                 QStringLiteral("--reason"), QStringLiteral("app bug, fixing")});
        QCOMPARE(ran.exitCode, 0);
        QCOMPARE(heldState(id), QStringLiteral("rejected"));
        const Ran next = onImage({QStringLiteral("--once"), QStringLiteral("--json")});
        for (const QJsonValue &v : next.json().value(QStringLiteral("actions")).toArray())
            if (str(v.toObject(), "rowId") == rowId(3))
                QCOMPARE(str(v.toObject(), "result"), QStringLiteral("rejected"));
        QVERIFY(!listed().contains(rowId(3)));
        QCOMPARE(status(rowId(3)), QStringLiteral("QUEUED"));
        const auto detail = sql(m_env,
                                QStringLiteral("SELECT state_detail FROM reclaim.held_action "
                                               "WHERE id = ?"),
                                {id});
        QVERIFY(detail.first().first().toString().contains(QLatin1String("app bug, fixing")));
    }

    // Bad selections are refused before anything is read, naming what is wrong.
    void badSelectionsAreRefused()
    {
        QCOMPARE(onImage({QStringLiteral("--approve")}).exitCode, 1);
        QCOMPARE(onImage({QStringLiteral("--approve"), QStringLiteral("x1")}).exitCode, 1);
        QCOMPARE(onImage({QStringLiteral("--reject"), QStringLiteral("--domain"),
                          QStringLiteral("image")})
                     .exitCode,
                 1);
        const Ran unknown = onImage(
            {QStringLiteral("--approve"), QStringLiteral("--domain"), QStringLiteral("imag")});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains("no domain 'imag'"), unknown.err.constData());
        const Ran missing = onImage({QStringLiteral("--approve"), QStringLiteral("999999")});
        QCOMPARE(missing.exitCode, 11);
        QVERIFY2(missing.err.contains("no held action has id 999999"), missing.err.constData());
    }

    // A list or decisions that cannot be written (stdout on a full disk) are not a success: exit
    // 5 with the reason, never 0 with a cut list. What was decided stays decided.
    void outputThatCannotBeWrittenIsNotASuccess()
    {
        const QString script = QStringLiteral("exec \"$0\" \"$@\" > /dev/full");
        const auto toFull = [&](const QStringList &args) {
            return runReclaim(
                m_env, QStringLiteral("/bin/sh"),
                QStringList{QStringLiteral("-c"), script, QStringLiteral(RECLAIM_BINARY)} + args +
                    QStringList{QStringLiteral("--config"), m_imageConfig});
        };
        for (const QStringList &args :
             {QStringList{QStringLiteral("--held")},
              QStringList{QStringLiteral("--held"), QStringLiteral("--json")}}) {
            const Ran ran = toFull(args);
            QVERIFY2(ran.exitCode == 5 &&
                         ran.err.contains("the held actions could not be written to stdout"),
                     ran.both().constData());
        }
        const qint64 id = listed().value(rowId(4)).value(QStringLiteral("id")).toInteger();
        QVERIFY(id > 0);
        const Ran rejected =
            toFull({QStringLiteral("--reject"), QString::number(id), QStringLiteral("--json"),
                    QStringLiteral("--reason"), QStringLiteral("output test")});
        QVERIFY2(rejected.exitCode == 5 &&
                     rejected.err.contains("the decisions could not be written to stdout"),
                 rejected.both().constData());
        QCOMPARE(heldState(id), QStringLiteral("rejected"));
    }

    // The rest of the domain at once: every held one runs, each with one audit row.
    void approvingADomainRunsEveryHeldAction()
    {
        const auto before = listed();
        QVERIFY(!before.isEmpty());
        const Ran ran =
            onImage({QStringLiteral("--approve"), QStringLiteral("--domain"),
                     QStringLiteral("image"), QStringLiteral("--kind"), QStringLiteral("fail")});
        QVERIFY2(ran.exitCode == 0, ran.both().constData());
        for (auto it = before.cbegin(); it != before.cend(); ++it) {
            QCOMPARE(status(it.key()), QStringLiteral("FAILED"));
            QCOMPARE(appliedAudits(QStringLiteral("image"), it.key()), 1);
        }
        QVERIFY(listed().isEmpty());
    }

    // A mass approval (#30): more held actions than one step (5,000) or one execute batch (2,000)
    // takes.
    // Each keeps its own decision: the row that moved on and the job that became runnable again
    // are superseded, the one another operator rejected meanwhile is told as taken, and every
    // other runs — under one lock and generation for the whole approval, one audit row each,
    // its parent failed with it.
    void aMassApprovalDecidesEachActionOnItsOwn()
    {
        constexpr int kMass = 5400;
        sql(m_env, QStringLiteral("INSERT INTO \"Image\" (id, status) SELECT 'mimg_' || i, "
                                  "'PROCESSING' FROM generate_series(1, %1) AS i")
                       .arg(kMass));
        sql(m_env, QStringLiteral("INSERT INTO \"ImageJob\" (id, \"imageId\", status, "
                                  "\"updatedAt\") SELECT 'mj_' || i, 'mimg_' || i, 'QUEUED', "
                                  "now() - interval '2 hours' FROM generate_series(1, %1) AS i")
                       .arg(kMass));
        const Ran held = onImage({QStringLiteral("--once"), QStringLiteral("--json")});
        QVERIFY2(held.exitCode == 10, held.err.constData());
        const auto entries = listed();
        QList<qint64> ids;
        QHash<qint64, QString> rowOf;
        for (int i = 1; i <= kMass; ++i) {
            const QJsonObject h = entries.value(QStringLiteral("mj_%1").arg(i));
            QVERIFY2(!h.isEmpty(), qPrintable(QStringLiteral("mj_%1 is not held").arg(i)));
            const qint64 id = h.value(QStringLiteral("id")).toInteger();
            ids << id;
            rowOf.insert(id, QStringLiteral("mj_%1").arg(i));
        }
        // Meanwhile: a worker touched mj_7, the app enqueued mj_9's job again, and another
        // operator rejected mj_11.
        sql(m_env, QStringLiteral("UPDATE \"ImageJob\" SET \"updatedAt\" = \"updatedAt\" - "
                                  "interval '1 minute' WHERE id = 'mj_7'"));
        runNode(m_env, QStringLiteral("producer.js"),
                {QStringLiteral("--queue"), QStringLiteral("image-render"), QStringLiteral("--id"),
                 QStringLiteral("image-mj_9"), QStringLiteral("--data"), QStringLiteral("{}")});
        const Ran rejected = onImage({QStringLiteral("--reject"), QString::number(ids.at(10)),
                                      QStringLiteral("--reason"), QStringLiteral("mass test")});
        QVERIFY2(rejected.exitCode == 0, rejected.both().constData());

        QStringList args{QStringLiteral("--approve"), QStringLiteral("--json")};
        for (qint64 id : ids)
            args << QString::number(id);
        const Ran ran = onImage(args);
        QVERIFY2(ran.exitCode == 11, ran.err.left(2000).constData());
        const QJsonArray decisions = ran.json().value(QStringLiteral("decisions")).toArray();
        QCOMPARE(decisions.size(), kMass);
        QHash<QString, QString> outcomeOf, detailOf;
        for (qsizetype i = 0; i < decisions.size(); ++i) {
            const QJsonObject d = decisions.at(i).toObject();
            QCOMPARE(d.value(QStringLiteral("id")).toInteger(), ids.at(i)); // in the order named
            outcomeOf.insert(rowOf.value(ids.at(i)), str(d, "outcome"));
            detailOf.insert(rowOf.value(ids.at(i)), str(d, "detail"));
        }
        QCOMPARE(outcomeOf.value(QStringLiteral("mj_7")), QStringLiteral("superseded"));
        QVERIFY2(detailOf.value(QStringLiteral("mj_7")).contains(QLatin1String("moved on")),
                 qPrintable(detailOf.value(QStringLiteral("mj_7"))));
        QCOMPARE(outcomeOf.value(QStringLiteral("mj_9")), QStringLiteral("superseded"));
        QVERIFY2(detailOf.value(QStringLiteral("mj_9")).contains(QLatin1String("SCHEDULED")),
                 qPrintable(detailOf.value(QStringLiteral("mj_9"))));
        QCOMPARE(outcomeOf.value(QStringLiteral("mj_11")), QStringLiteral("already-taken"));
        QVERIFY2(detailOf.value(QStringLiteral("mj_11")).contains(QLatin1String("rejected by")),
                 qPrintable(detailOf.value(QStringLiteral("mj_11"))));
        const QSet<QString> notRun{QStringLiteral("mj_7"), QStringLiteral("mj_9"),
                                   QStringLiteral("mj_11")};
        for (auto it = outcomeOf.cbegin(); it != outcomeOf.cend(); ++it)
            if (!notRun.contains(it.key()))
                QVERIFY2(it.value() == QLatin1String("executed"),
                         qPrintable(it.key() + QLatin1Char(' ') + it.value() + QLatin1Char(' ') +
                                    detailOf.value(it.key())));
        // What ran is in the database, once each, under one generation.
        const auto written =
            sql(m_env, QStringLiteral("SELECT count(*) FILTER (WHERE j.status = 'FAILED'), "
                                      "count(*) FILTER (WHERE i.status = 'FAILED') FROM "
                                      "\"ImageJob\" j JOIN \"Image\" i ON i.id = j.\"imageId\" "
                                      "WHERE j.id LIKE 'mj\\_%'"));
        QCOMPARE(written.first().at(0).toInt(), kMass - 3);
        QCOMPARE(written.first().at(1).toInt(), kMass - 3);
        QCOMPARE(status(QStringLiteral("mj_7")), QStringLiteral("QUEUED"));
        QCOMPARE(status(QStringLiteral("mj_9")), QStringLiteral("QUEUED"));
        QCOMPARE(status(QStringLiteral("mj_11")), QStringLiteral("QUEUED"));
        const auto audits = sql(
            m_env, QStringLiteral("SELECT count(*), count(DISTINCT row_id), count(DISTINCT "
                                  "generation), count(DISTINCT run_id) FROM reclaim.audit WHERE "
                                  "domain = 'image' AND row_id LIKE 'mj\\_%' AND result = "
                                  "'applied'"));
        QCOMPARE(audits.first().at(0).toInt(), kMass - 3);
        QCOMPARE(audits.first().at(1).toInt(), kMass - 3);
        QCOMPARE(audits.first().at(2).toInt(), 1);
        QCOMPARE(audits.first().at(3).toInt(), 1);
        const auto open =
            sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.held_action WHERE row_id "
                                      "LIKE 'mj\\_%' AND state IN ('held', 'approved')"));
        QCOMPARE(open.first().first().toInt(), 0);
    }

    // A misspelt queue name held a whole domain: on-call rejects all of it in one command, in
    // sets (the held moves, the rejections and their audit rows a statement per 5,000). Each id
    // keeps its own decision — the one another operator rejected first is told as taken, an
    // unknown id as such — every rejection is recorded once with its audit row, no row changes,
    // and the next run holds none of them again.
    void aMassRejectionDecidesEachAndRecordsEach()
    {
        constexpr int kMass = 5400; // more than one set
        sql(m_env, QStringLiteral("INSERT INTO \"Image\" (id, status) SELECT 'rimg_' || i, "
                                  "'PROCESSING' FROM generate_series(1, %1) AS i")
                       .arg(kMass));
        sql(m_env, QStringLiteral("INSERT INTO \"ImageJob\" (id, \"imageId\", status, "
                                  "\"updatedAt\") SELECT 'rj_' || i, 'rimg_' || i, 'QUEUED', "
                                  "now() - interval '2 hours' FROM generate_series(1, %1) AS i")
                       .arg(kMass));
        const Ran held = onImage({QStringLiteral("--once")});
        QVERIFY2(held.exitCode == 10, held.err.constData());
        const auto entries = listed();
        QStringList args{QStringLiteral("--reject"), QStringLiteral("--json"),
                         QStringLiteral("--reason"), QStringLiteral("queue name misspelt")};
        QList<qint64> ids;
        for (int i = 1; i <= kMass; ++i) {
            const qint64 id = entries.value(QStringLiteral("rj_%1").arg(i))
                                  .value(QStringLiteral("id"))
                                  .toInteger();
            QVERIFY2(id > 0, qPrintable(QStringLiteral("rj_%1 is not held").arg(i)));
            ids << id;
            args << QString::number(id);
        }
        args << QStringLiteral("999999");
        const Ran first = onImage({QStringLiteral("--reject"), QString::number(ids.at(10)),
                                   QStringLiteral("--reason"), QStringLiteral("seen first")});
        QVERIFY2(first.exitCode == 0, first.both().constData());

        QElapsedTimer took;
        took.start();
        const Ran ran = onImage(args);
        qInfo("%d rejected in one command: %lld ms", kMass, took.elapsed());
        QVERIFY2(ran.exitCode == 11, ran.err.left(2000).constData());
        const QJsonArray decisions = ran.json().value(QStringLiteral("decisions")).toArray();
        QCOMPARE(decisions.size(), kMass + 1);
        for (qsizetype i = 0; i < kMass; ++i) {
            const QJsonObject d = decisions.at(i).toObject();
            QCOMPARE(d.value(QStringLiteral("id")).toInteger(), ids.at(i)); // in the order named
            if (i == 10) {
                QCOMPARE(str(d, "outcome"), QStringLiteral("already-taken"));
                QVERIFY2(str(d, "detail").contains(QLatin1String("seen first")),
                         qPrintable(str(d, "detail")));
                continue;
            }
            QVERIFY2(str(d, "outcome") == QLatin1String("rejected") &&
                         str(d, "detail").contains(QLatin1String("queue name misspelt")),
                     qPrintable(str(d, "outcome") + QLatin1Char(' ') + str(d, "detail")));
        }
        QCOMPARE(str(decisions.at(kMass).toObject(), "outcome"), QStringLiteral("no-such-action"));

        // One rejection and one audit row per row (the first operator's included), none applied.
        const auto recorded =
            sql(m_env, QStringLiteral(
                           "SELECT (SELECT count(DISTINCT row_id) FROM reclaim.rejection WHERE "
                           "row_id LIKE 'rj\\_%' AND undone_at IS NULL), (SELECT count(*) FROM "
                           "reclaim.rejection WHERE row_id LIKE 'rj\\_%'), (SELECT count(*) FROM "
                           "reclaim.audit WHERE row_id LIKE 'rj\\_%' AND result = 'rejected' AND "
                           "detail LIKE 'rejected by %; not offered again while the row stays "
                           "QUEUED, updatedAt %'), (SELECT count(*) FROM reclaim.held_action "
                           "WHERE row_id LIKE 'rj\\_%' AND state = 'rejected'), (SELECT count(*) "
                           "FROM \"ImageJob\" WHERE id LIKE 'rj\\_%' AND status = 'QUEUED')"));
        QCOMPARE(recorded.first().at(0).toInt(), kMass);
        QCOMPARE(recorded.first().at(1).toInt(), kMass);
        QCOMPARE(recorded.first().at(2).toInt(), kMass);
        QCOMPARE(recorded.first().at(3).toInt(), kMass);
        QCOMPARE(recorded.first().at(4).toInt(), kMass);

        // The next run offers none of them again.
        onImage({QStringLiteral("--once")});
        const auto after = listed();
        for (int i = 1; i <= kMass; ++i)
            QVERIFY2(!after.contains(QStringLiteral("rj_%1").arg(i)),
                     qPrintable(QStringLiteral("rj_%1 is held again").arg(i)));
        // Out of the way of the tests after this one.
        sql(m_env, QStringLiteral("UPDATE \"ImageJob\" SET status = 'FAILED' WHERE id LIKE "
                                  "'rj\\_%'"));
    }

    // An approval that cannot take the lock (Redis is not there) decides nothing: each action is
    // held again with the reason, its row untouched; a later approval runs them.
    void anApprovalWithoutTheLockHoldsEachAgain()
    {
        for (int i = 1; i <= 3; ++i) {
            sql(m_env,
                QStringLiteral("INSERT INTO \"Image\" (id, status) VALUES (?, "
                               "'PROCESSING')"),
                {QStringLiteral("limg_%1").arg(i)});
            sql(m_env,
                QStringLiteral("INSERT INTO \"ImageJob\" (id, \"imageId\", status, "
                               "\"updatedAt\") VALUES (?, ?, 'QUEUED', now() - interval "
                               "'2 hours')"),
                {QStringLiteral("lj_%1").arg(i), QStringLiteral("limg_%1").arg(i)});
        }
        QCOMPARE(onImage({QStringLiteral("--once")}).exitCode, 10);
        const auto entries = listed();
        QStringList args{QStringLiteral("--approve"), QStringLiteral("--json")};
        for (int i = 1; i <= 3; ++i) {
            const QJsonObject h = entries.value(QStringLiteral("lj_%1").arg(i));
            QVERIFY(!h.isEmpty());
            args << QString::number(h.value(QStringLiteral("id")).toInteger());
        }
        const Ran away = runReclaim(
            m_env, QStringLiteral(RECLAIM_BINARY),
            QStringList(args) << QStringLiteral("--config") << m_imageConfig,
            {{QStringLiteral("RECLAIM_REDIS_URL"), QStringLiteral("redis://127.0.0.1:1/0")}});
        QVERIFY2(away.exitCode == 11, away.both().constData());
        const QJsonArray decisions = away.json().value(QStringLiteral("decisions")).toArray();
        QCOMPARE(decisions.size(), 3);
        for (const QJsonValue &v : decisions) {
            const QJsonObject d = v.toObject();
            QCOMPARE(str(d, "outcome"), QStringLiteral("held-again"));
            QVERIFY2(str(d, "detail").contains(QLatin1String("could not take the lock")),
                     qPrintable(str(d, "detail")));
            QCOMPARE(heldState(d.value(QStringLiteral("id")).toInteger()), QStringLiteral("held"));
        }
        for (int i = 1; i <= 3; ++i) {
            QCOMPARE(status(QStringLiteral("lj_%1").arg(i)), QStringLiteral("QUEUED"));
            QCOMPARE(appliedAudits(QStringLiteral("image"), QStringLiteral("lj_%1").arg(i)), 0);
        }
        const Ran later = onImage(args);
        QVERIFY2(later.exitCode == 0, later.both().constData());
        for (int i = 1; i <= 3; ++i)
            QCOMPARE(status(QStringLiteral("lj_%1").arg(i)), QStringLiteral("FAILED"));
    }

    // Redis lost its data: every queue is gone, so every domain with a stale row is held (no
    // trace). The app restarts (its Queues stamp their meta again); approving each domain then
    // recovers every action, each with exactly one applied audit row.
    void aFlushAllIsHeldThenRecoveredByApproval()
    {
        resetSandbox(m_env);
        migrate(m_env);
        {
            SeededIncident incident(m_env, 3, 1, false);
            QVERIFY(incident.ready());
        }
        dropExpiringKeys(m_env);
        QVERIFY(redis(m_env).command({QByteArrayLiteral("FLUSHALL")}).hasValue());
        const QString sample = QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");
        const Ran held = reclaimRun({QStringLiteral("--once"), QStringLiteral("--json"),
                                     QStringLiteral("--config"), sample});
        QCOMPARE(held.exitCode, 10);
        const QJsonArray actions = held.json().value(QStringLiteral("actions")).toArray();
        QVERIFY(!actions.isEmpty());
        QSet<QString> domains;
        for (const QJsonValue &v : actions) {
            const QJsonObject a = v.toObject();
            QCOMPARE(str(a, "result"), QStringLiteral("pending"));
            QVERIFY2(str(a, "held").contains(QLatin1String("no trace in Redis")),
                     qPrintable(str(a, "held")));
            QVERIFY(a.value(QStringLiteral("heldId")).toInteger() > 0);
            domains.insert(str(a, "domain"));
        }
        auto config = ConfigLoader::loadFile(sample, m_env.processEnvironment());
        QVERIFY(config.hasValue());
        openAppQueues(m_env, *config);
        for (const QString &domain : domains) {
            const Ran ran = reclaimRun({QStringLiteral("--approve"), QStringLiteral("--domain"),
                                        domain, QStringLiteral("--config"), sample});
            QVERIFY2(ran.exitCode == 0, ran.both().constData());
        }
        for (const QJsonValue &v : actions) {
            const QJsonObject a = v.toObject();
            QCOMPARE(appliedAudits(str(a, "domain"), str(a, "rowId")), 1);
            if (str(a, "kind") == QLatin1String("REQUEUE"))
                QVERIFY2(redisKeyExists(m_env, QStringLiteral("bull:%1:%2")
                                                   .arg(str(a, "queue"), str(a, "jobId"))
                                                   .toUtf8()),
                         qPrintable(str(a, "id")));
        }
        const auto open = sql(m_env, QStringLiteral("SELECT count(*) FROM reclaim.held_action "
                                                    "WHERE state IN ('held', 'approved')"));
        QCOMPARE(open.first().first().toInt(), 0);
    }
};

QTEST_GUILESS_MAIN(TestHeld)
#include "test_held.moc"
