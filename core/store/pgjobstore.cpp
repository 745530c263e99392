#include "store/pgjobstore.h"

#include "store/reclaimschema.h"

#include <QAtomicInteger>
#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace reclaim {

QString quoteIdentifier(const QString &name)
{
    QString escaped = name;
    escaped.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

namespace {

QString placeholders(qsizetype n)
{
    QStringList marks;
    for (qsizetype i = 0; i < n; ++i)
        marks << QStringLiteral("?");
    return marks.join(QStringLiteral(", "));
}

// QtSql binds a null QString as SQL NULL; the audit's text columns want "" for "nothing".
QVariant text(const QString &s)
{
    return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}

QString nextConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("reclaim-pg-%1").arg(counter.fetchAndAddRelaxed(1));
}

} // namespace

PgJobStore::PgJobStore(QString connectionName, QString endpoint, bool readOnly)
    : m_connectionName(std::move(connectionName)), m_endpoint(std::move(endpoint)),
      m_readOnly(readOnly)
{}

PgJobStore::~PgJobStore()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

StoreError PgJobStore::failure(const QString &what, const QSqlQuery &query) const
{
    return StoreError{QStringLiteral("PostgreSQL %1 (%2): %3")
                          .arg(what, m_endpoint, query.lastError().text().trimmed())};
}

Expected<std::unique_ptr<PgJobStore>, StoreError> PgJobStore::open(const ReclaimConfig &config,
                                                                   bool readOnly)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
        return unexpected(
            StoreError{QStringLiteral("the Qt PostgreSQL driver (QPSQL) is not installed; "
                                      "install libqt6sql6-psql")});
    const PostgresEndpoint &pg = config.postgres;
    std::unique_ptr<PgJobStore> store(
        new PgJobStore(nextConnectionName(), pg.redacted(), readOnly));
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), store->m_connectionName);
    db.setHostName(pg.host);
    db.setPort(pg.port);
    db.setUserName(pg.user);
    db.setPassword(pg.password);
    db.setDatabaseName(pg.database);
    const qint64 timeoutS = qMax<qint64>(1, (config.run.postgresTimeout.count() + 999) / 1000);
    QString options = QStringLiteral("connect_timeout=%1;application_name=reclaim").arg(timeoutS);
    if (!pg.options.isEmpty())
        options += QLatin1Char(';') + pg.options;
    db.setConnectOptions(options);
    if (!db.open()) // the driver's text never contains the password; the endpoint is redacted
        return unexpected(StoreError{QStringLiteral("cannot connect to PostgreSQL at %1: %2")
                                         .arg(store->m_endpoint, db.lastError().text().trimmed())});

    QSqlQuery q(db);
    const qint64 ms = config.run.postgresTimeout.count();
    const QStringList session{
        QStringLiteral("SET TimeZone = '%1'")
            .arg(QString(config.run.timeZone).replace(QLatin1Char('\''), QString())),
        QStringLiteral("SET DateStyle = 'ISO, YMD'"),
        QStringLiteral("SET statement_timeout = %1").arg(ms),
        QStringLiteral("SET lock_timeout = %1").arg(ms),
        QStringLiteral("SET idle_in_transaction_session_timeout = %1")
            .arg(qMax<qint64>(ms * 4, 10000)),
    };
    for (const QString &sql : session)
        if (!q.exec(sql))
            return unexpected(store->failure(QStringLiteral("session setup"), q));

    if (!readOnly) {
        if (!db.transaction())
            return unexpected(store->failure(QStringLiteral("schema migration"), q));
        for (const QString &sql : reclaimSchemaStatements()) {
            if (!q.exec(sql)) {
                StoreError e = store->failure(QStringLiteral("creating Reclaim's schema"), q);
                db.rollback();
                return unexpected(e);
            }
        }
        if (!db.commit())
            return unexpected(
                StoreError{QStringLiteral("PostgreSQL (%1): cannot commit Reclaim's schema: %2")
                               .arg(store->m_endpoint, db.lastError().text())});
    }
    return store;
}

CandidateQuery candidateQuery(const DomainConfig &d)
{
    const JobColumns &c = d.columns;
    const QString typeExpr = c.type.isEmpty() ? QStringLiteral("''")
                                              : quoteIdentifier(c.type) + QStringLiteral("::text");
    CandidateQuery out;
    out.sql = QStringLiteral("SELECT %1::text, %2::text, %3, %4::text, "
                             "extract(epoch FROM %4)::float8, row_to_json(t)::text "
                             "FROM %5 AS t WHERE %2 IN (%6)")
                  .arg(quoteIdentifier(c.id), quoteIdentifier(c.status), typeExpr,
                       quoteIdentifier(c.updatedAt), quoteIdentifier(d.table),
                       placeholders(d.candidateStatuses.size()));
    if (!d.types.isEmpty())
        out.sql += QStringLiteral(" AND %1 IN (%2)")
                       .arg(quoteIdentifier(c.type), placeholders(d.types.size()));
    out.sql += QStringLiteral(" AND %1 < now() - make_interval(secs => ?) ORDER BY %1")
                   .arg(quoteIdentifier(c.updatedAt));
    for (const QString &s : d.candidateStatuses)
        out.binds << s;
    for (const QString &t : d.types)
        out.binds << t;
    out.binds << static_cast<double>(d.threshold.count());
    return out;
}

Expected<QList<Candidate>, StoreError> PgJobStore::readCandidates(const DomainConfig &d)
{
    const CandidateQuery query = candidateQuery(d);
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    if (!q.prepare(query.sql))
        return unexpected(
            failure(QStringLiteral("preparing the candidate query of %1").arg(d.name), q));
    for (const QVariant &v : query.binds)
        q.addBindValue(v);
    if (!q.exec())
        return unexpected(failure(QStringLiteral("reading candidates of %1").arg(d.name), q));
    QList<Candidate> out;
    while (q.next()) {
        Candidate cand;
        cand.domain = d.name;
        cand.id = q.value(0).toString();
        cand.status = q.value(1).toString();
        cand.type = q.value(2).toString();
        cand.updatedAtText = q.value(3).toString();
        cand.updatedAt = QDateTime::fromMSecsSinceEpoch(
            static_cast<qint64>(q.value(4).toDouble() * 1000.0), Qt::UTC);
        cand.rowJson = q.value(5).toString();
        out << cand;
    }
    if (q.lastError().isValid())
        return unexpected(failure(QStringLiteral("reading candidates of %1").arg(d.name), q));
    return out;
}

Expected<std::optional<QByteArray>, StoreError>
PgJobStore::restorePayload(const DomainConfig &d, const RestoreRule &rule, const QString &rowId)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    if (!q.prepare(rule.query))
        return unexpected(
            failure(QStringLiteral("preparing the restore query of %1").arg(d.name), q));
    q.bindValue(QStringLiteral(":jobId"), rowId);
    if (!q.exec())
        return unexpected(
            failure(QStringLiteral("running the restore query of %1").arg(d.name), q));
    if (!q.next() || q.value(0).isNull())
        return std::optional<QByteArray>();
    return std::optional<QByteArray>(q.value(0).toString().toUtf8());
}

Expected<int, StoreError> PgJobStore::recentRequeues(const DomainConfig &d, const QString &rowId)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    // A read-only store may face a database where Reclaim's schema was never created.
    if (!q.exec(QStringLiteral("SELECT to_regclass('reclaim.requeue') IS NOT NULL")) || !q.next())
        return unexpected(failure(QStringLiteral("checking Reclaim's schema"), q));
    if (!q.value(0).toBool())
        return 0;
    q.prepare(QStringLiteral("SELECT count(*) FROM reclaim.requeue WHERE domain = ? AND row_id = ? "
                             "AND at > now() - make_interval(secs => ?)"));
    q.addBindValue(d.name);
    q.addBindValue(rowId);
    q.addBindValue(static_cast<double>(d.requeueWindow.count()));
    if (!q.exec() || !q.next())
        return unexpected(
            failure(QStringLiteral("reading the retry budget of %1/%2").arg(d.name, rowId), q));
    return q.value(0).toInt();
}

Expected<bool, StoreError> PgJobStore::startGeneration(qint64 generation)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(QStringLiteral("UPDATE reclaim.fence SET generation = ?, started_at = now() "
                             "WHERE id = 1 AND generation <= ?"));
    q.addBindValue(generation);
    q.addBindValue(generation);
    if (!q.exec())
        return unexpected(
            failure(QStringLiteral("recording run generation %1").arg(generation), q));
    return q.numRowsAffected() == 1;
}

Expected<WriteOutcome, StoreError> PgJobStore::applyAction(const DomainConfig &d, const Action &a,
                                                           const Actor &actor)
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    QSqlQuery q(db);
    if (!db.transaction())
        return unexpected(StoreError{QStringLiteral("PostgreSQL (%1): cannot begin: %2")
                                         .arg(m_endpoint, db.lastError().text())});
    auto fail = [&](const QString &what) {
        StoreError e = failure(what, q);
        db.rollback();
        return unexpected(e);
    };

    WriteOutcome out;
    // FOR SHARE waits for a newer run that is recording its start, then sees its generation:
    // no stale run's write can slip in between.
    if (!q.exec(QStringLiteral("SELECT generation FROM reclaim.fence WHERE id = 1 FOR SHARE")) ||
        !q.next())
        return fail(QStringLiteral("checking the fence"));
    const qint64 highest = q.value(0).toLongLong();
    int rows = 0;
    if (highest != a.precondition.generation) {
        out.result = ActionResult::Fenced;
    } else {
        const JobColumns &c = d.columns;
        QStringList sets{QStringLiteral("%1 = ?").arg(quoteIdentifier(c.status))};
        QVariantList values{a.kind == ActionKind::Requeue ? d.queuedStatus : d.failedStatus};
        if (a.kind == ActionKind::Requeue && !c.progress.isEmpty())
            sets << QStringLiteral("%1 = 0").arg(quoteIdentifier(c.progress));
        if (!c.error.isEmpty()) {
            sets << QStringLiteral("%1 = ?").arg(quoteIdentifier(c.error));
            values << (a.kind == ActionKind::Requeue ? QVariant(QMetaType(QMetaType::QString))
                                                     : QVariant(a.reason));
        }
        sets << QStringLiteral("%1 = now()").arg(quoteIdentifier(c.updatedAt));
        // The observed updatedAt goes back as the column's own text, so the database parses it
        // into the column's type with every digit it had.
        const QString sql = QStringLiteral("UPDATE %1 SET %2 WHERE %3 = ? AND %4 = ? AND %5 = ?")
                                .arg(quoteIdentifier(d.table), sets.join(QStringLiteral(", ")),
                                     quoteIdentifier(c.id), quoteIdentifier(c.status),
                                     quoteIdentifier(c.updatedAt));
        q.prepare(sql);
        for (const QVariant &v : values)
            q.addBindValue(v);
        q.addBindValue(a.rowId);
        q.addBindValue(a.precondition.status);
        q.addBindValue(a.precondition.updatedAtText);
        if (!q.exec())
            return fail(QStringLiteral("writing %1 row %2").arg(d.table, a.rowId));
        rows = q.numRowsAffected();
        out.result = rows == 1 ? ActionResult::Applied : ActionResult::Stale;

        const ParentRule *parent = a.kind == ActionKind::Fail ? d.parentFor(a.jobType) : nullptr;
        if (rows == 1 && parent) {
            out.parent.attempted = true;
            out.parent.table = parent->table;
            out.parent.column = parent->column;
            out.parent.newValue = parent->failedValue;
            q.prepare(
                QStringLiteral("UPDATE %1 SET %2 = ? WHERE %3 = (SELECT %4 FROM %5 WHERE %6 = ?) "
                               "AND %2 IN (%7) RETURNING %3::text")
                    .arg(quoteIdentifier(parent->table), quoteIdentifier(parent->column),
                         quoteIdentifier(parent->idColumn), quoteIdentifier(parent->foreignKey),
                         quoteIdentifier(d.table), quoteIdentifier(c.id),
                         placeholders(parent->inProgress.size())));
            q.addBindValue(parent->failedValue);
            q.addBindValue(a.rowId);
            for (const QString &s : parent->inProgress)
                q.addBindValue(s);
            if (!q.exec())
                return fail(QStringLiteral("cleaning up %1 of %2 row %3")
                                .arg(parent->table, d.table, a.rowId));
            out.parent.rows = q.numRowsAffected();
            if (q.next())
                out.parent.parentId = q.value(0).toString();
        }
        if (rows == 1 && a.kind == ActionKind::Requeue) {
            q.prepare(QStringLiteral(
                "INSERT INTO reclaim.requeue (domain, row_id, generation) VALUES (?, ?, ?)"));
            q.addBindValue(d.name);
            q.addBindValue(a.rowId);
            q.addBindValue(a.precondition.generation);
            if (!q.exec())
                return fail(QStringLiteral("recording the requeue of %1").arg(a.rowId));
        }
    }

    Action audited = a;
    audited.result = out.result;
    q.prepare(QStringLiteral(
        "INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, generation, "
        "domain, row_id, action, observed_status, observed_updated_at, result, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v :
         QVariantList{text(actor.runId), text(actor.kind), text(actor.host), text(actor.user),
                      a.precondition.generation, text(a.domain), text(a.rowId),
                      actionKindName(a.kind), text(a.precondition.status),
                      text(a.precondition.updatedAtText), actionResultName(out.result),
                      out.parent.attempted ? QStringLiteral("parent %1.%2 rows=%3")
                                                 .arg(out.parent.table, out.parent.column)
                                                 .arg(out.parent.rows)
                                           : a.reason})
        q.addBindValue(v);
    if (!q.exec())
        return fail(QStringLiteral("writing the audit row for %1").arg(a.rowId));
    if (!db.commit())
        return unexpected(StoreError{QStringLiteral("PostgreSQL (%1): commit failed for %2: %3")
                                         .arg(m_endpoint, a.rowId, db.lastError().text())});
    return out;
}

void PgJobStore::auditOnly(const Action &a, const Actor &actor)
{
    if (m_readOnly)
        return;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(QStringLiteral(
        "INSERT INTO reclaim.audit (run_id, actor_kind, actor_host, actor_user, generation, "
        "domain, row_id, action, observed_status, observed_updated_at, result, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v : QVariantList{
             text(actor.runId), text(actor.kind), text(actor.host), text(actor.user),
             a.precondition.generation, text(a.domain), text(a.rowId), actionKindName(a.kind),
             text(a.precondition.status), text(a.precondition.updatedAtText),
             actionResultName(a.result), text(a.resultDetail)})
        q.addBindValue(v);
    q.exec(); // best effort: the audit of a non-write must not turn into a failed action
}

} // namespace reclaim
