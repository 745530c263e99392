// The reference application on the sandbox: migrations apply (and re-apply as a no-op) in
// Prisma's naming; the candidate query Reclaim issues is planned on the composite index; the
// seeder's incident really contains every state its manifest claims — read back from Redis
// and PostgreSQL here, not taken on the seeder's word.
#include "postgres/candidatequery.h"
#include "postgres/pgjobstore.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// The query with its bound values written in as literals, for EXPLAIN.
QString inlined(const CandidateQuery &q)
{
    QString sql = q.sql;
    for (const QVariant &v : q.binds) {
        const qsizetype at = sql.indexOf(QLatin1Char('?'));
        const QString literal = v.typeId() == QMetaType::Double
                                    ? QString::number(v.toDouble())
                                    : QLatin1Char('\'') + v.toString() + QLatin1Char('\'');
        sql.replace(at, 1, literal);
    }
    return sql;
}

QByteArray redisBytes(RedisConnection &r, const RedisCommand &cmd)
{
    auto v = r.command(cmd);
    return v ? v->toBytes().value_or(QByteArray()) : QByteArrayLiteral("<error>");
}

// LPOS and ZSCORE answer nil when absent (LPOS answers 0 for the head, which is presence).
bool redisNotNil(RedisConnection &r, const RedisCommand &cmd)
{
    auto v = r.command(cmd);
    return v && !v->isNil();
}

} // namespace

class TestRefapp : public QObject
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
        resetSandbox(m_env);
    }

    void migrationsApplyOnceInPrismaNaming()
    {
        migrate(m_env);
        migrate(m_env); // a second run is a no-op
        const auto applied =
            sql(m_env, QStringLiteral("SELECT count(*) FROM \"_refapp_migrations\""));
        QCOMPARE(applied.first().first().toInt(), 2);
        const auto cols =
            sql(m_env, QStringLiteral(
                           "SELECT data_type, datetime_precision FROM information_schema.columns "
                           "WHERE table_name = 'VideoJob' AND column_name = 'updatedAt'"));
        QCOMPARE(cols.size(), 1);
        QCOMPARE(cols.first().at(0).toString(), QStringLiteral("timestamp without time zone"));
        QCOMPARE(cols.first().at(1).toInt(), 3);
        const auto invalid =
            sql(m_env, QStringLiteral("SELECT count(*) FROM pg_index WHERE NOT indisvalid"));
        QCOMPARE(invalid.first().first().toInt(), 0); // CONCURRENTLY builds all finished
    }

    void seededIncidentHasEveryStateItClaims()
    {
        SeededIncident incident(m_env, 1, 1, true);
        QVERIFY(incident.ready());
        // The seeder's own independent checker (plain Redis commands, not bullmq)...
        const QByteArray out = runNode(m_env, QStringLiteral("check-manifest.js"),
                                       {QStringLiteral("--manifest"),
                                        QStringLiteral("%1/manifest-1-1.json").arg(m_env.dir),
                                        QStringLiteral("--phase"), QStringLiteral("before")});
        QVERIFY2(out.contains(" 0 problem"), out.constData());
        // ...and ours, state by state.
        auto r = redis(m_env);
        QSet<QString> statesSeen;
        for (const QJsonValue &value : incident.rows()) {
            const QJsonObject row = value.toObject();
            const QString state = row.value(QStringLiteral("expectedState")).toString();
            const QString queue = row.value(QStringLiteral("queue")).toString();
            const QByteArray id = row.value(QStringLiteral("bullJobId")).toString().toUtf8();
            if (state.isEmpty() || queue.isEmpty())
                continue;
            const QByteArray k = QByteArrayLiteral("bull:") + queue.toUtf8() + ':';
            bool present = false;
            if (state == QLatin1String("waiting") || state == QLatin1String("paused"))
                present = redisNotNil(r, {QByteArrayLiteral("LPOS"), k + "wait", id});
            else if (state == QLatin1String("active"))
                present = redisNotNil(r, {QByteArrayLiteral("LPOS"), k + "active", id});
            else
                present = redisNotNil(r, {QByteArrayLiteral("ZSCORE"), k + state.toUtf8(), id});
            QVERIFY2(
                present,
                qPrintable(
                    QStringLiteral("%1 not %2 in %3").arg(QString::fromUtf8(id), state, queue)));
            if (state == QLatin1String("paused"))
                QCOMPARE(redisBytes(r, {QByteArrayLiteral("HGET"), k + "meta",
                                        QByteArrayLiteral("paused")}),
                         QByteArrayLiteral("1"));
            if (row.value(QStringLiteral("lockHeld")).toBool())
                QCOMPARE(redisBytes(r, {QByteArrayLiteral("EXISTS"), k + id + ":lock"}),
                         QByteArrayLiteral("1"));
            // The row is really in the database, as the manifest says.
            const auto db = sql(m_env,
                                QStringLiteral("SELECT status FROM \"%1\" WHERE id = ?")
                                    .arg(row.value(QStringLiteral("table")).toString()),
                                {row.value(QStringLiteral("id")).toString()});
            QCOMPARE(db.size(), 1);
            QCOMPARE(db.first().first().toString(), row.value(QStringLiteral("status")).toString());
            statesSeen.insert(state);
        }
        for (const char *s : {"waiting", "delayed", "prioritized", "active", "waiting-children",
                              "paused", "completed", "failed"})
            QVERIFY2(statesSeen.contains(QLatin1String(s)), s);
        // Legacy auto-numbered ids carry the row id only in data.jobId.
        const auto legacy = incident.rowsOfKind(QStringLiteral("legacy-id-waiting"));
        QVERIFY(!legacy.isEmpty());
        const QJsonObject row = legacy.first();
        bool numeric = false;
        row.value(QStringLiteral("bullJobId")).toString().toLongLong(&numeric);
        QVERIFY(numeric);
        const QByteArray data =
            redisBytes(r, {QByteArrayLiteral("HGET"),
                           "bull:" + row.value(QStringLiteral("queue")).toString().toUtf8() + ':' +
                               row.value(QStringLiteral("bullJobId")).toString().toUtf8(),
                           QByteArrayLiteral("data")});
        QCOMPARE(QJsonDocument::fromJson(data).object().value(QStringLiteral("jobId")).toString(),
                 row.value(QStringLiteral("id")).toString());
    }

    void candidateQueryUsesTheCompositeIndex()
    {
        // A realistic table: mostly finished history, few candidates.
        resetSandbox(m_env);
        migrate(m_env);
        SeededIncident incident(m_env, 2, 2, false);
        QVERIFY(incident.ready());
        const QList<QPair<QString, bool>> tables{{QStringLiteral("SlideJob"), true},
                                                 {QStringLiteral("VideoJob"), true},
                                                 {QStringLiteral("DocumentJob"), true},
                                                 {QStringLiteral("ImageJob"), false},
                                                 {QStringLiteral("NarrationJob"), false}};
        for (const auto &[table, typed] : tables) {
            const QString parentKey =
                table.chopped(3).toLower() + QStringLiteral("Id"); // "VideoJob" → "videoId"
            const QString typeColumn = typed ? QStringLiteral("type, ") : QString();
            const QString typeValue =
                typed ? QStringLiteral("(SELECT type FROM \"%1\" LIMIT 1), ").arg(table)
                      : QString();
            sql(m_env,
                QStringLiteral(
                    "INSERT INTO \"%1\" (id, \"%2\", %3status, \"updatedAt\") "
                    "SELECT 'history' || g, (SELECT \"%2\" FROM \"%1\" LIMIT 1), %4"
                    "(ARRAY['COMPLETED', 'FAILED'])[1 + g % 2], now() - g * interval '1 minute' "
                    "FROM generate_series(1, 20000) g")
                    .arg(table, parentKey, typeColumn, typeValue));
        }
        sql(m_env, QStringLiteral("ANALYZE"));
        const ReclaimConfig config = sampleConfig(m_env);
        for (const DomainConfig &d : config.domains) {
            const auto plan = sql(m_env, QStringLiteral("EXPLAIN (FORMAT JSON) ") +
                                             inlined(candidateQuery(d, RowJson::Skip)));
            const QString text = plan.first().first().toString();
            QVERIFY2(
                text.contains(QStringLiteral("\"Index Name\": \"%1_status_").arg(d.table)),
                qPrintable(QStringLiteral("%1 does not use its (status, ..., updatedAt) index:\n%2")
                               .arg(d.table, text)));
            QVERIFY2(!text.contains(QStringLiteral("\"Seq Scan\"")), qPrintable(text));
        }
    }
};

QTEST_GUILESS_MAIN(TestRefapp)
#include "test_refapp.moc"
