#include "querybench.h"

#include "postgres/candidateplan.h"
#include "postgres/candidatequery.h"
#include "postgres/pgjobstore.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

namespace reclaim::bench {

namespace {

const char *const kNoIndexOptions =
    "-c enable_indexscan=off -c enable_bitmapscan=off -c enable_indexonlyscan=off";

struct Plan
{
    QJsonObject summary;
    QStringList indexes;
};

// The candidate query's plan (core/postgres/candidateplan.h), run with ANALYZE, with index scans
// on or off for the session.
Expected<Plan, QString> explain(QSqlDatabase &db, const CandidateQuery &cq, bool noIndex)
{
    QSqlQuery q(db);
    const QString mode = noIndex ? QStringLiteral("off") : QStringLiteral("on");
    for (const char *setting : {"enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"})
        if (!q.exec(QStringLiteral("SET %1 = %2").arg(QLatin1String(setting), mode)))
            return unexpected(q.lastError().text());
    auto plan = explainCandidateQuery(db, cq, QStringLiteral("ANALYZE, BUFFERS, FORMAT JSON"));
    if (!plan)
        return unexpected(plan.error());
    const QJsonObject &root = plan->root;
    const QJsonObject top = root.value(QStringLiteral("Plan")).toObject();
    Plan out;
    out.indexes = plan->indexes;
    out.summary = {
        {QStringLiteral("nodes"), QJsonArray::fromStringList(plan->nodeTypes)},
        {QStringLiteral("indexes"), QJsonArray::fromStringList(plan->indexes)},
        {QStringLiteral("executionMs"), root.value(QStringLiteral("Execution Time")).toDouble()},
        {QStringLiteral("planningMs"), root.value(QStringLiteral("Planning Time")).toDouble()},
        {QStringLiteral("rows"), top.value(QStringLiteral("Actual Rows")).toDouble()},
        {QStringLiteral("sharedHitBlocks"),
         top.value(QStringLiteral("Shared Hit Blocks")).toDouble()},
        {QStringLiteral("sharedReadBlocks"),
         top.value(QStringLiteral("Shared Read Blocks")).toDouble()},
        {QStringLiteral("plan"), top},
    };
    return out;
}

} // namespace

int runQueryBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 5));

    QSqlDatabase db =
        QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("bench-explain"));
    db.setHostName(config->postgres.host);
    db.setPort(config->postgres.port);
    db.setUserName(config->postgres.user);
    db.setPassword(config->postgres.password);
    db.setDatabaseName(config->postgres.database);
    if (!db.open())
        return fail(QStringLiteral("cannot connect to %1: %2")
                        .arg(config->postgres.redacted(), db.lastError().text()));
    QSqlQuery(db).exec(QStringLiteral("SET TimeZone = 'UTC'"));

    // The real code path twice: a store as Reclaim opens it, and one whose session has every
    // index scan disabled (libpq takes PGOPTIONS at connect time).
    auto indexed = PgJobStore::open(*config, true);
    const QByteArray savedOptions = qgetenv("PGOPTIONS");
    qputenv("PGOPTIONS", (savedOptions + ' ' + kNoIndexOptions).trimmed());
    auto noIndex = PgJobStore::open(*config, true);
    qputenv("PGOPTIONS", savedOptions);
    if (!indexed || !noIndex)
        return fail(!indexed ? indexed.error().message : noIndex.error().message);
    {
        QSqlQuery check(QSqlDatabase::database((*noIndex)->connectionName(), false));
        if (!check.exec(QStringLiteral("SHOW enable_indexscan")) || !check.next() ||
            check.value(0).toString() != QLatin1String("off"))
            return fail(QStringLiteral("could not disable index scans for the comparison session"));
    }

    QJsonArray domains;
    bool allComposite = true;
    QHash<QString, QList<double>> withIndex, without;
    QHash<QString, qsizetype> rows;
    for (int rep = 0; rep <= reps; ++rep) { // rep 0 warms caches and is not counted
        for (const DomainConfig &d : config->domains) {
            for (int mode = 0; mode < 2; ++mode) {
                PgJobStore &store = mode == 0 ? **indexed : **noIndex;
                QElapsedTimer t;
                t.start();
                auto read = store.readCandidates(d, RowJson::Skip);
                const double ms = t.nsecsElapsed() / 1e6;
                if (!read)
                    return fail(read.error().message);
                rows[d.name] = read->size();
                if (rep > 0)
                    (mode == 0 ? withIndex : without)[d.name] << ms;
            }
        }
    }
    for (const DomainConfig &d : config->domains) {
        const CandidateQuery cq = candidateQuery(d, RowJson::Skip);
        auto planIndexed = explain(db, cq, false);
        auto planSeq = explain(db, cq, true);
        if (!planIndexed || !planSeq)
            return fail(QStringLiteral("EXPLAIN of %1 failed: %2")
                            .arg(d.name, !planIndexed ? planIndexed.error() : planSeq.error()));
        const auto indexes = indexColumns(db, d.table);
        if (!indexes)
            return fail(QStringLiteral("reading the indexes of %1 failed: %2")
                            .arg(d.table, indexes.error()));
        const QHash<QString, QStringList> &columns = *indexes;
        QString used;
        for (const QString &name : planIndexed->indexes)
            if (isCompositeIndex(d, columns.value(name)))
                used = name;
        allComposite = allComposite && !used.isEmpty();
        const double a = median(withIndex.value(d.name));
        const double b = median(without.value(d.name));
        domains.append(QJsonObject{
            {QStringLiteral("domain"), d.name},
            {QStringLiteral("table"), d.table},
            {QStringLiteral("candidates"), static_cast<qint64>(rows.value(d.name))},
            {QStringLiteral("sql"), cq.sql},
            {QStringLiteral("indexMs"), summarize(withIndex.value(d.name))},
            {QStringLiteral("noIndexMs"), summarize(without.value(d.name))},
            {QStringLiteral("ratio"), a > 0 ? b / a : 0},
            {QStringLiteral("indexPlan"), planIndexed->summary},
            {QStringLiteral("noIndexPlan"), planSeq->summary},
            {QStringLiteral("compositeIndex"), used},
            {QStringLiteral("compositeColumns"), QJsonArray::fromStringList(columns.value(used))},
            {QStringLiteral("usesCompositeIndex"), !used.isEmpty()},
        });
    }
    printJson({{QStringLiteral("measure"), QStringLiteral("query")},
               {QStringLiteral("reps"), reps},
               {QStringLiteral("allUseCompositeIndex"), allComposite},
               {QStringLiteral("domains"), domains}});
    return allComposite ? 0 : 3;
}

} // namespace reclaim::bench
