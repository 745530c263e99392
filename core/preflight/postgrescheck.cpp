#include "preflight/postgrescheck.h"

#include "postgres/candidateplan.h"
#include "postgres/pgwatchdog.h"
#include "postgres/sqltext.h"
#include "preflight/loopback.h"

#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QVariant>

namespace reclaim {

namespace {

const QString kReachable = QStringLiteral("postgres.reachable");
const QString kVersion = QStringLiteral("postgres.version");
const QString kTls = QStringLiteral("postgres.tls");
const QString kSchema = QStringLiteral("postgres.schema");

QString privilegesId(const DomainConfig &d)
{
    return QStringLiteral("postgres.privileges.") + d.name;
}
QString indexId(const DomainConfig &d)
{
    return QStringLiteral("postgres.index.") + d.name;
}
QString rowsId(const DomainConfig &d)
{
    return QStringLiteral("postgres.candidates.") + d.name;
}

// One statement's rows, or its error (the server's text, one line).
Expected<QList<QVariantList>, QString> rows(PgConnection &conn, const QString &sql,
                                            const QVariantList &binds = {})
{
    QSqlQuery q(conn.database());
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        return unexpected(conn.failure(QStringLiteral("check"), q).message);
    for (const QVariant &v : binds)
        q.addBindValue(v);
    if (!q.exec())
        return unexpected(conn.failure(QStringLiteral("check"), q).message);
    QList<QVariantList> out;
    while (q.next()) {
        QVariantList row;
        for (int i = 0; i < q.record().count(); ++i)
            row << q.value(i);
        out << row;
    }
    return out;
}

struct ColumnRights
{
    bool select = false;
    bool update = false;
};

// The role's rights on each column of a configured table; nullopt when no such table is visible.
Expected<std::optional<QHash<QString, ColumnRights>>, QString> columnRights(PgConnection &conn,
                                                                            const QString &table)
{
    auto r = rows(
        conn,
        QStringLiteral("SELECT a.attname, has_column_privilege(a.attrelid, a.attnum, 'SELECT'), "
                       "has_column_privilege(a.attrelid, a.attnum, 'UPDATE') FROM pg_attribute a "
                       "WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped"),
        {quoteTableName(table)});
    if (!r)
        return unexpected(r.error());
    if (r->isEmpty())
        return std::optional<QHash<QString, ColumnRights>>();
    QHash<QString, ColumnRights> out;
    for (const QVariantList &row : *r)
        out.insert(row.at(0).toString(), ColumnRights{row.at(1).toBool(), row.at(2).toBool()});
    return std::optional<QHash<QString, ColumnRights>>(out);
}

QString quotedList(const QStringList &columns)
{
    QStringList q;
    for (const QString &c : columns)
        q << quoteIdentifier(c);
    return q.join(QStringLiteral(", "));
}

void checkPrivileges(PgConnection &conn, const DomainConfig &d, const QString &role,
                     CheckReport &report)
{
    const QString id = privilegesId(d);
    // The job table: every column is read (the candidate query selects row_to_json of the row),
    // the columns the conditional write sets are updated.
    struct Need
    {
        QString table;
        QStringList update;
        QStringList mustExist;
    };
    const JobColumns &c = d.columns;
    Need job{d.table, {c.status, c.updatedAt}, {c.id, c.status, c.updatedAt}};
    for (const QString &opt : {c.progress, c.error})
        if (!opt.isEmpty())
            job.update << opt;
    if (!c.type.isEmpty())
        job.mustExist << c.type;
    job.mustExist << job.update;
    QList<Need> needs{job};
    for (const ParentRule &p : d.parents) {
        needs.first().mustExist << p.foreignKey;
        needs << Need{p.table, {p.column}, {p.idColumn, p.column}};
    }
    QStringList problems;
    QStringList grants;
    for (const Need &n : needs) {
        auto rights = columnRights(conn, n.table);
        if (!rights) {
            report.add(id, CheckStatus::Fail,
                       QStringLiteral("could not check: %1").arg(rights.error()));
            return;
        }
        if (!*rights) {
            problems << QStringLiteral("table %1 does not exist (or role %2 cannot see it)")
                            .arg(n.table, role);
            continue;
        }
        const QHash<QString, ColumnRights> &cols = **rights;
        QStringList missing, noSelect, noUpdate;
        for (const QString &col : n.mustExist)
            if (!cols.contains(col) && !missing.contains(col))
                missing << col;
        for (auto it = cols.cbegin(); it != cols.cend(); ++it)
            if (!it->select && (n.table == d.table || n.mustExist.contains(it.key())))
                noSelect << it.key();
        for (const QString &col : n.update)
            if (cols.contains(col) && !cols.value(col).update && !noUpdate.contains(col))
                noUpdate << col;
        noSelect.sort();
        if (!missing.isEmpty())
            problems << QStringLiteral("%1 has no column %2")
                            .arg(n.table, missing.join(QStringLiteral(", ")));
        if (!noSelect.isEmpty()) {
            problems << QStringLiteral("role %1 may not SELECT %2.%3")
                            .arg(role, n.table, noSelect.join(QStringLiteral(", ")));
            grants << QStringLiteral("GRANT SELECT ON %1 TO %2")
                          .arg(quoteTableName(n.table), quoteIdentifier(role));
        }
        if (!noUpdate.isEmpty()) {
            problems << QStringLiteral("role %1 may not UPDATE %2.%3")
                            .arg(role, n.table, noUpdate.join(QStringLiteral(", ")));
            grants << QStringLiteral("GRANT UPDATE (%1) ON %2 TO %3")
                          .arg(quotedList(noUpdate), quoteTableName(n.table),
                               quoteIdentifier(role));
        }
    }
    if (problems.isEmpty()) {
        QStringList parents;
        for (const ParentRule &p : d.parents)
            parents << p.table + QLatin1Char('.') + p.column;
        report.add(id, CheckStatus::Pass,
                   QStringLiteral("role %1 may SELECT every column of %2 and UPDATE %3%4")
                       .arg(role, d.table, job.update.join(QStringLiteral(", ")),
                            parents.isEmpty() ? QString()
                                              : QStringLiteral("; parents: ") +
                                                    parents.join(QStringLiteral(", "))));
        return;
    }
    report.add(id, CheckStatus::Fail, problems.join(QStringLiteral("; ")),
               grants.isEmpty()
                   ? QStringLiteral("fix domains[].table / columns in the configuration")
                   : grants.join(QStringLiteral("; ")));
}

void checkIndexAndRows(PgConnection &conn, const DomainConfig &d, CheckReport &report)
{
    QSqlDatabase db = conn.database();
    // With sequential scans priced out, the planner takes an index whenever one can serve the
    // query: a small table (where a scan is cheaper) does not hide a missing index, and a plan
    // without the composite index then means there is none that fits. In a transaction that is
    // rolled back, so the setting never outlives the statement.
    const auto fail = [&](const QString &why) {
        report.add(indexId(d), CheckStatus::Fail, QStringLiteral("could not check: %1").arg(why));
        report.add(rowsId(d), CheckStatus::Fail, QStringLiteral("could not check: %1").arg(why));
    };
    if (!db.transaction()) {
        fail(conn.failure(QStringLiteral("BEGIN")).message);
        return;
    }
    QSqlQuery set(db);
    if (!set.exec(QStringLiteral("SET LOCAL enable_seqscan = off"))) {
        fail(conn.failure(QStringLiteral("SET LOCAL"), set).message);
        db.rollback();
        return;
    }
    auto plan =
        explainCandidateQuery(db, candidateQuery(d, RowJson::Skip), QStringLiteral("FORMAT JSON"));
    db.rollback();
    if (!plan) {
        fail(QStringLiteral("EXPLAIN of the candidate query of %1: %2").arg(d.name, plan.error()));
        return;
    }
    auto columns = indexColumns(db, d.table);
    if (!columns) {
        fail(QStringLiteral("reading the indexes of %1: %2").arg(d.table, columns.error()));
        return;
    }
    const QString used = compositeIndexUsed(d, *plan, *columns);
    if (!used.isEmpty())
        report.add(indexId(d), CheckStatus::Pass,
                   QStringLiteral("the candidate query of %1 uses index %2 (%3)")
                       .arg(d.name, used, columns->value(used).join(QStringLiteral(", "))));
    else
        report.add(indexId(d), CheckStatus::Fail,
                   QStringLiteral("the candidate query of %1 cannot use a (status, ..., updatedAt) "
                                  "index on %2 (plan: %3): every run reads the whole table")
                       .arg(d.name, d.table, plan->nodeTypes.join(QStringLiteral(" > "))),
                   compositeIndexStatement(d));
    report.add(rowsId(d), CheckStatus::Pass,
               QStringLiteral("about %1 candidate rows in %2 (the planner's estimate)")
                   .arg(qRound64(plan->estimatedRows))
                   .arg(d.table));
}

void checkSchema(PgConnection &conn, const QString &role, CheckReport &report)
{
    auto r = rows(conn, QStringLiteral("SELECT to_regnamespace('reclaim') IS NOT NULL, "
                                       "has_database_privilege(current_database(), 'CREATE')"));
    if (!r || r->isEmpty()) {
        report.add(
            kSchema, CheckStatus::Fail,
            QStringLiteral("could not check: %1").arg(r ? QStringLiteral("no answer") : r.error()));
        return;
    }
    const bool exists = r->first().at(0).toBool();
    const bool canCreate = r->first().at(1).toBool();
    if (!exists) {
        if (canCreate)
            report.add(kSchema, CheckStatus::Pass,
                       QStringLiteral("schema reclaim does not exist yet; role %1 may create it "
                                      "(the first writing run does)")
                           .arg(role));
        else
            report.add(kSchema, CheckStatus::Fail,
                       QStringLiteral("schema reclaim does not exist and role %1 may not create "
                                      "schemas in this database")
                           .arg(role),
                       QStringLiteral("CREATE SCHEMA reclaim AUTHORIZATION %1 (as the database "
                                      "owner), or GRANT CREATE ON DATABASE <db> TO %1")
                           .arg(quoteIdentifier(role)));
        return;
    }
    // The schema's own tables: the migration re-runs CREATE ... IF NOT EXISTS, a run reads and
    // writes every one of them.
    auto t =
        rows(conn, QStringLiteral(
                       "SELECT has_schema_privilege('reclaim', 'USAGE'), "
                       "has_schema_privilege('reclaim', 'CREATE'), "
                       "coalesce(string_agg(c.relname, ', ' ORDER BY c.relname) FILTER (WHERE NOT "
                       "(has_table_privilege(c.oid, 'SELECT') AND has_table_privilege(c.oid, "
                       "'INSERT') AND has_table_privilege(c.oid, 'UPDATE'))), '') "
                       "FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid AND "
                       "c.relkind = 'r' WHERE n.nspname = 'reclaim' GROUP BY n.oid"));
    if (!t || t->isEmpty()) {
        report.add(
            kSchema, CheckStatus::Fail,
            QStringLiteral("could not check: %1").arg(t ? QStringLiteral("no answer") : t.error()));
        return;
    }
    const bool usage = t->first().at(0).toBool();
    const bool create = t->first().at(1).toBool();
    const QString lacking = t->first().at(2).toString();
    if (usage && create && lacking.isEmpty()) {
        report.add(kSchema, CheckStatus::Pass,
                   QStringLiteral("schema reclaim exists; role %1 may use it and read and write "
                                  "its tables")
                       .arg(role));
        return;
    }
    QStringList problems;
    if (!usage || !create)
        problems << QStringLiteral("role %1 lacks %2 on schema reclaim")
                        .arg(role, !usage ? QStringLiteral("USAGE") : QStringLiteral("CREATE"));
    if (!lacking.isEmpty())
        problems << QStringLiteral("role %1 may not SELECT, INSERT and UPDATE reclaim.%2")
                        .arg(role, lacking);
    report.add(kSchema, CheckStatus::Fail, problems.join(QStringLiteral("; ")),
               QStringLiteral("GRANT USAGE, CREATE ON SCHEMA reclaim TO %1; GRANT SELECT, INSERT, "
                              "UPDATE ON ALL TABLES IN SCHEMA reclaim TO %1")
                   .arg(quoteIdentifier(role)));
}

} // namespace

QStringList postgresCheckIds(const ReclaimConfig &config)
{
    QStringList ids{kReachable, kVersion, kTls, kSchema};
    for (const DomainConfig &d : config.domains)
        ids << privilegesId(d) << indexId(d) << rowsId(d);
    return ids;
}

std::chrono::milliseconds preflightPostgresBudget(const RunSettings &run)
{
    return 2 * run.postgresTimeout + std::chrono::milliseconds(1000);
}

QString compositeIndexStatement(const DomainConfig &d)
{
    QStringList columns{d.columns.status};
    if (!d.types.isEmpty() && !d.columns.type.isEmpty())
        columns << d.columns.type;
    columns << d.columns.updatedAt;
    const QString bare = d.table.section(QLatin1Char('.'), -1);
    return QStringLiteral("CREATE INDEX CONCURRENTLY %1 ON %2 (%3)")
        .arg(quoteIdentifier(bare + QStringLiteral("_status_updatedAt_idx")),
             quoteTableName(d.table), quotedList(columns));
}

std::unique_ptr<PgConnection> checkPostgres(const ReclaimConfig &config, CheckReport &report)
{
    auto opened = PgConnection::open(config);
    if (!opened) {
        report.add(kReachable, CheckStatus::Fail, opened.error().message,
                   QStringLiteral("check connections.postgresUrl (or RECLAIM_PG_URL), the role "
                                  "and password, and that the server runs and pg_hba.conf "
                                  "admits this host"));
        report.couldNotCheck(postgresCheckIds(config).mid(1),
                             QStringLiteral("PostgreSQL is unreachable"));
        return nullptr;
    }
    std::unique_ptr<PgConnection> conn = std::move(*opened);
    // libpq has no read timeout and a frozen server still ACKs: the items' statements together
    // get what two statement timeouts may rightly take, after which the socket is shut and the
    // rest fail "could not check" instead of hanging the check.
    PgWatchdog watchdog;
    watchdog.arm(conn->socket(), preflightPostgresBudget(config.run));
    const auto disarm = qScopeGuard([&watchdog] { watchdog.disarm(); });
    report.add(kReachable, CheckStatus::Pass,
               QStringLiteral("PostgreSQL at %1 answered").arg(config.postgres.redacted()));

    QString role = config.postgres.user;
    auto v =
        rows(*conn, QStringLiteral("SELECT current_setting('server_version'), "
                                   "current_setting('server_version_num')::int, current_user"));
    if (!v || v->isEmpty()) {
        report.add(
            kVersion, CheckStatus::Fail,
            QStringLiteral("could not check: %1").arg(v ? QStringLiteral("no answer") : v.error()));
    } else {
        role = v->first().at(2).toString();
        const int num = v->first().at(1).toInt();
        if (num < 120000)
            report.add(kVersion, CheckStatus::Warn,
                       QStringLiteral("PostgreSQL %1: Reclaim is tested on 12 and later")
                           .arg(v->first().at(0).toString()),
                       QStringLiteral("upgrade PostgreSQL to a supported release"));
        else
            report.add(kVersion, CheckStatus::Pass,
                       QStringLiteral("PostgreSQL %1, connected as role %2")
                           .arg(v->first().at(0).toString(), role));
    }

    auto ssl = rows(*conn, QStringLiteral("SELECT ssl, coalesce(version, ''), coalesce(cipher, '') "
                                          "FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    if (!ssl || ssl->isEmpty())
        report.add(kTls, CheckStatus::Fail,
                   QStringLiteral("could not check: pg_stat_ssl: %1")
                       .arg(ssl ? QStringLiteral("no row for this session") : ssl.error()));
    else if (ssl->first().at(0).toBool())
        report.add(kTls, CheckStatus::Pass,
                   QStringLiteral("TLS in use (%1, %2)")
                       .arg(ssl->first().at(1).toString(), ssl->first().at(2).toString()));
    else if (isLoopbackHost(config.postgres.host))
        report.add(kTls, CheckStatus::Pass,
                   QStringLiteral("no TLS: the connection to %1 stays on this machine")
                       .arg(config.postgres.host));
    else
        report.add(kTls, CheckStatus::Warn,
                   QStringLiteral("no TLS to %1: the password and job rows cross the network "
                                  "unencrypted")
                       .arg(config.postgres.host),
                   QStringLiteral("add ?sslmode=verify-full (or require) to the PostgreSQL URL"));

    checkSchema(*conn, role, report);
    for (const DomainConfig &d : config.domains) {
        checkPrivileges(*conn, d, role, report);
        checkIndexAndRows(*conn, d, report);
    }
    return conn;
}

} // namespace reclaim
