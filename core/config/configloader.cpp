#include "config/configloader.h"

#include "util/clusterslot.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTimeZone>
#include <algorithm>

namespace reclaim {

QString ConfigError::toString() const
{
    if (keyPath.isEmpty())
        return QStringLiteral("%1: %2").arg(origin, problem);
    return QStringLiteral("%1: %2: %3").arg(origin, keyPath, problem);
}

namespace {

struct Invalid
{
    QString keyPath;
    QString problem;
};

// Walks one JSON object, remembering its key path, refusing keys nobody asked for.
class ObjectReader
{
public:
    ObjectReader(QJsonObject object, QString path)
        : m_object(std::move(object)), m_path(std::move(path))
    {}

    QString pathOf(const QString &key) const
    {
        return m_path.isEmpty() ? key : m_path + QLatin1Char('.') + key;
    }

    bool has(const QString &key) const { return m_object.contains(key); }
    bool isEmpty() const { return m_object.isEmpty(); }
    const QString &path() const { return m_path; }

    QJsonValue peek(const QString &key) const { return m_object.value(key); }

    QJsonValue take(const QString &key)
    {
        m_seen.insert(key);
        return m_object.value(key);
    }

    QString string(const QString &key, const QString &fallback, bool required = false)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined()) {
            if (required)
                throw Invalid{pathOf(key), QStringLiteral("is required")};
            return fallback;
        }
        if (!v.isString())
            throw Invalid{pathOf(key), QStringLiteral("must be a string")};
        if (required && v.toString().isEmpty())
            throw Invalid{pathOf(key), QStringLiteral("must not be empty")};
        return v.toString();
    }

    bool boolean(const QString &key, bool fallback)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return fallback;
        if (!v.isBool())
            throw Invalid{pathOf(key), QStringLiteral("must be true or false")};
        return v.toBool();
    }

    qint64 integer(const QString &key, qint64 fallback, qint64 min, qint64 max)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return fallback;
        if (!v.isDouble() || v.toDouble() != static_cast<double>(static_cast<qint64>(v.toDouble())))
            throw Invalid{pathOf(key), QStringLiteral("must be an integer")};
        const auto n = static_cast<qint64>(v.toDouble());
        if (n < min || n > max)
            throw Invalid{pathOf(key),
                          QStringLiteral("must be between %1 and %2").arg(min).arg(max)};
        return n;
    }

    // A number from 0 to 1 (a share).
    double fraction(const QString &key, double fallback)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return fallback;
        if (!v.isDouble() || v.toDouble() < 0 || v.toDouble() > 1)
            throw Invalid{pathOf(key), QStringLiteral("must be a number from 0 to 1")};
        return v.toDouble();
    }

    QStringList stringList(const QString &key, const QStringList &fallback, bool nonEmpty)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined()) {
            if (nonEmpty && fallback.isEmpty())
                throw Invalid{pathOf(key), QStringLiteral("is required")};
            return fallback;
        }
        if (!v.isArray())
            throw Invalid{pathOf(key), QStringLiteral("must be a list of strings")};
        QStringList out;
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (!array.at(i).isString() || array.at(i).toString().isEmpty())
                throw Invalid{QStringLiteral("%1[%2]").arg(pathOf(key)).arg(i),
                              QStringLiteral("must be a non-empty string")};
            out << array.at(i).toString();
        }
        if (nonEmpty && out.isEmpty())
            throw Invalid{pathOf(key), QStringLiteral("must not be an empty list")};
        return out;
    }

    ObjectReader object(const QString &key)
    {
        const QJsonValue v = take(key);
        if (!v.isUndefined() && !v.isObject())
            throw Invalid{pathOf(key), QStringLiteral("must be an object")};
        return ObjectReader(v.toObject(), pathOf(key));
    }

    // Call once every expected key was taken: a typo must not silently become a default.
    void rejectUnknownKeys() const
    {
        for (auto it = m_object.begin(); it != m_object.end(); ++it)
            if (!m_seen.contains(it.key()))
                throw Invalid{pathOf(it.key()), QStringLiteral("unknown key")};
    }

private:
    QJsonObject m_object;
    QString m_path;
    QSet<QString> m_seen;
};

void requireIdentifier(const QString &value, const QString &path)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,62}$"));
    if (!plain.match(value).hasMatch())
        throw Invalid{path,
                      QStringLiteral("'%1' is not a plain SQL identifier (letters, digits, _; "
                                     "at most 63 characters)")
                          .arg(value)};
}

// A job or parent table: `table` or `schema.table`, each part a plain identifier, so the store
// can quote each part on its own (a dot inside one quoted identifier would name another table).
void requireTableName(const QString &value, const QString &path)
{
    static const QRegularExpression qualified(
        QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?$"));
    if (!qualified.match(value).hasMatch())
        throw Invalid{path, QStringLiteral("'%1' is not a table name: expected table or "
                                           "schema.table, each a plain SQL identifier (letters, "
                                           "digits, _; at most 63 characters)")
                                .arg(value)};
}

void requireQueueName(const QString &value, const QString &path)
{
    if (value.isEmpty() || value.contains(QLatin1Char(':')) || value.contains(QLatin1Char(' ')))
        throw Invalid{
            path,
            QStringLiteral("'%1' is not a valid BullMQ queue name (no ':' or spaces)").arg(value)};
}

JobColumns readColumns(ObjectReader r)
{
    JobColumns c;
    c.id = r.string(QStringLiteral("id"), c.id);
    c.status = r.string(QStringLiteral("status"), c.status);
    c.updatedAt = r.string(QStringLiteral("updatedAt"), c.updatedAt);
    c.type = r.string(QStringLiteral("type"), c.type);
    c.progress = r.string(QStringLiteral("progress"), c.progress);
    c.error = r.string(QStringLiteral("error"), c.error);
    r.rejectUnknownKeys();
    for (const auto &[key, value] : {std::pair{QStringLiteral("id"), c.id},
                                     {QStringLiteral("status"), c.status},
                                     {QStringLiteral("updatedAt"), c.updatedAt},
                                     {QStringLiteral("type"), c.type},
                                     {QStringLiteral("progress"), c.progress},
                                     {QStringLiteral("error"), c.error}})
        if (!value.isEmpty())
            requireIdentifier(value, r.pathOf(key));
    return c;
}

RestoreRule readRestore(ObjectReader r, const DomainConfig &domain)
{
    RestoreRule rule;
    rule.types = r.stringList(QStringLiteral("types"), {}, false);
    rule.queue = r.string(QStringLiteral("queue"), {}, true);
    rule.jobName = r.string(QStringLiteral("jobName"), {}, true);
    rule.query = r.string(QStringLiteral("query"), {}, true);
    r.rejectUnknownKeys();
    if (!domain.queues.contains(rule.queue))
        throw Invalid{r.pathOf(QStringLiteral("queue")),
                      QStringLiteral("'%1' is not one of the domain's queues").arg(rule.queue)};
    if (!rule.query.contains(QStringLiteral(":jobId")))
        throw Invalid{r.pathOf(QStringLiteral("query")),
                      QStringLiteral("must use the :jobId placeholder for the job's row id")};
    return rule;
}

// removeOnComplete / removeOnFail as BullMQ takes them: true or false, how many jobs to keep, or
// {age (seconds), count}.
QJsonValue readRetention(ObjectReader &r, const QString &key)
{
    const QJsonValue v = r.take(key);
    if (v.isBool())
        return v;
    if (v.isDouble()) {
        const double n = v.toDouble();
        if (n < 0 || n != static_cast<double>(static_cast<qint64>(n)))
            throw Invalid{r.pathOf(key),
                          QStringLiteral("must be true, false, a whole number of jobs to keep, "
                                         "or {\"age\": seconds, \"count\": jobs}")};
        return static_cast<qint64>(n);
    }
    if (!v.isObject())
        throw Invalid{r.pathOf(key), QStringLiteral("must be true, false, a whole number of jobs "
                                                    "to keep, or {\"age\": seconds, \"count\": "
                                                    "jobs}")};
    ObjectReader keep(v.toObject(), r.pathOf(key));
    QJsonObject out;
    if (keep.has(QStringLiteral("age")))
        out.insert(QStringLiteral("age"),
                   keep.integer(QStringLiteral("age"), 0, 0, 100LL * 365 * 86400));
    if (keep.has(QStringLiteral("count")))
        out.insert(QStringLiteral("count"),
                   keep.integer(QStringLiteral("count"), 0, 0, 1000000000));
    keep.rejectUnknownKeys();
    if (out.isEmpty())
        throw Invalid{r.pathOf(key), QStringLiteral("needs \"age\" or \"count\"")};
    return out;
}

// domains[].jobOptions: the options a requeued job is written with where no retained job under
// its id carries its own — the application's retry policy above all (without it a requeued job
// gets the library's default: attempts 0, no retry). Each is checked as BullMQ reads it; the
// result is the JSON object the enqueue script merges into the options, in BullMQ's own names.
QByteArray readJobOptions(ObjectReader r)
{
    QJsonObject out;
    if (r.has(QStringLiteral("attempts")))
        out.insert(QStringLiteral("attempts"),
                   r.integer(QStringLiteral("attempts"), 0, 0, 1000000));
    if (r.has(QStringLiteral("priority")))
        out.insert(QStringLiteral("priority"),
                   r.integer(QStringLiteral("priority"), 0, 0, 2097152)); // BullMQ's 2^21
    if (r.has(QStringLiteral("backoff"))) {
        ObjectReader b = r.object(QStringLiteral("backoff"));
        QJsonObject backoff;
        // "fixed", "exponential", or a custom strategy the application's workers define.
        backoff.insert(QStringLiteral("type"), b.string(QStringLiteral("type"), {}, true));
        if (b.has(QStringLiteral("delay")))
            backoff.insert(QStringLiteral("delay"),
                           b.integer(QStringLiteral("delay"), 0, 0, 365LL * 86400 * 1000));
        b.rejectUnknownKeys();
        out.insert(QStringLiteral("backoff"), backoff);
    }
    for (const QString &key : {QStringLiteral("removeOnComplete"), QStringLiteral("removeOnFail")})
        if (r.has(key))
            out.insert(key, readRetention(r, key));
    r.rejectUnknownKeys();
    if (out.isEmpty())
        return {};
    return QJsonDocument(out).toJson(QJsonDocument::Compact);
}

ParentRule readParent(ObjectReader r)
{
    ParentRule rule;
    rule.types = r.stringList(QStringLiteral("types"), {}, false);
    rule.table = r.string(QStringLiteral("table"), {}, true);
    rule.idColumn = r.string(QStringLiteral("idColumn"), rule.idColumn);
    rule.foreignKey = r.string(QStringLiteral("foreignKey"), {}, true);
    rule.column = r.string(QStringLiteral("column"), {}, true);
    rule.inProgress = r.stringList(QStringLiteral("inProgress"), {}, true);
    rule.failedValue = r.string(QStringLiteral("failedValue"), {}, true);
    r.rejectUnknownKeys();
    requireTableName(rule.table, r.pathOf(QStringLiteral("table")));
    requireIdentifier(rule.idColumn, r.pathOf(QStringLiteral("idColumn")));
    requireIdentifier(rule.foreignKey, r.pathOf(QStringLiteral("foreignKey")));
    requireIdentifier(rule.column, r.pathOf(QStringLiteral("column")));
    return rule;
}

Policy readPolicy(ObjectReader &r, const QString &key, Policy fallback)
{
    const QString name = r.string(key, policyName(fallback));
    const auto policy = policyNamed(name);
    if (!policy)
        throw Invalid{r.pathOf(key),
                      QStringLiteral("'%1' is not a policy (auto, approve or observe)").arg(name)};
    return *policy;
}

// domains[].policy: one policy for both kinds ("approve"), or one per kind ({"requeue": "auto",
// "fail": "approve"}); a kind not named keeps run.policy.
void readDomainPolicy(ObjectReader &r, DomainConfig &d, Policy runDefault)
{
    d.requeuePolicy = runDefault;
    d.failPolicy = runDefault;
    const QString key = QStringLiteral("policy");
    if (!r.has(key))
        return;
    if (r.peek(key).isString()) {
        d.requeuePolicy = d.failPolicy = readPolicy(r, key, runDefault);
        return;
    }
    if (!r.peek(key).isObject())
        throw Invalid{r.pathOf(key),
                      QStringLiteral("must be a policy (auto, approve or observe) or an object "
                                     "with one per kind of action: {\"requeue\": ..., "
                                     "\"fail\": ...}")};
    ObjectReader kinds = r.object(key);
    d.requeuePolicy = readPolicy(kinds, QStringLiteral("requeue"), runDefault);
    d.failPolicy = readPolicy(kinds, QStringLiteral("fail"), runDefault);
    kinds.rejectUnknownKeys();
}

GuardSettings readGuard(ObjectReader r)
{
    GuardSettings g;
    g.maxActions =
        static_cast<int>(r.integer(QStringLiteral("maxActions"), g.maxActions, 1, 100000000));
    g.maxAbsentShare = r.fraction(QStringLiteral("maxAbsentShare"), g.maxAbsentShare);
    g.minCandidates =
        static_cast<int>(r.integer(QStringLiteral("minCandidates"), g.minCandidates, 1, 100000000));
    r.rejectUnknownKeys();
    return g;
}

DomainConfig readDomain(ObjectReader r, Policy runPolicy)
{
    DomainConfig d;
    d.name = r.string(QStringLiteral("name"), {}, true);
    d.table = r.string(QStringLiteral("table"), {}, true);
    requireTableName(d.table, r.pathOf(QStringLiteral("table")));
    d.columns = readColumns(r.object(QStringLiteral("columns")));
    d.candidateStatuses =
        r.stringList(QStringLiteral("candidateStatuses"), d.candidateStatuses, true);
    d.queuedStatus = r.string(QStringLiteral("queuedStatus"), d.queuedStatus);
    d.failedStatus = r.string(QStringLiteral("failedStatus"), d.failedStatus);
    d.types = r.stringList(QStringLiteral("types"), {}, false);
    if (!d.types.isEmpty() && d.columns.type.isEmpty())
        throw Invalid{r.pathOf(QStringLiteral("types")),
                      QStringLiteral("a type filter needs columns.type to be set")};
    d.threshold =
        std::chrono::seconds(r.integer(QStringLiteral("thresholdSeconds"), 3600, 1, 30LL * 86400));
    d.queues = r.stringList(QStringLiteral("queues"), {}, true);
    for (qsizetype i = 0; i < d.queues.size(); ++i)
        requireQueueName(d.queues.at(i),
                         QStringLiteral("%1[%2]").arg(r.pathOf(QStringLiteral("queues"))).arg(i));
    d.keyPrefix = r.string(QStringLiteral("keyPrefix"), d.keyPrefix);
    if (d.keyPrefix.isEmpty() || d.keyPrefix.contains(QLatin1Char(' ')))
        throw Invalid{r.pathOf(QStringLiteral("keyPrefix")),
                      QStringLiteral("must be a non-empty key prefix")};
    if (r.has(QStringLiteral("jobOptions")))
        d.jobOptions = readJobOptions(r.object(QStringLiteral("jobOptions")));
    if (r.has(QStringLiteral("bullmqIfUnstamped"))) {
        const qint64 major = r.integer(QStringLiteral("bullmqIfUnstamped"), 0, 0, 1000);
        if (major < 4 || major > 6)
            throw Invalid{r.pathOf(QStringLiteral("bullmqIfUnstamped")),
                          QStringLiteral("%1 is not a BullMQ major Reclaim writes: the major the "
                                         "application runs, 4, 5 or 6")
                              .arg(major)};
        d.bullmqIfUnstamped = QString::number(major);
    }
    d.jobIdTemplate = r.string(QStringLiteral("jobIdTemplate"), {}, true);
    if (!d.jobIdTemplate.contains(QStringLiteral("{id}")))
        throw Invalid{r.pathOf(QStringLiteral("jobIdTemplate")),
                      QStringLiteral("'%1' does not contain the row id placeholder {id}")
                          .arg(d.jobIdTemplate)};
    if (d.jobIdTemplate.contains(QLatin1Char(':')))
        throw Invalid{r.pathOf(QStringLiteral("jobIdTemplate")),
                      QStringLiteral("BullMQ job ids may not contain ':'")};
    if (d.jobIdTemplate.contains(QStringLiteral("{type}")) && d.columns.type.isEmpty())
        throw Invalid{r.pathOf(QStringLiteral("jobIdTemplate")),
                      QStringLiteral("uses {type} but columns.type is not set")};
    if (r.has(QStringLiteral("restore")))
        d.restore = readRestore(r.object(QStringLiteral("restore")), d);
    const QJsonValue parents = r.take(QStringLiteral("parents"));
    if (!parents.isUndefined()) {
        if (!parents.isArray())
            throw Invalid{r.pathOf(QStringLiteral("parents")),
                          QStringLiteral("must be a list of objects")};
        const QJsonArray array = parents.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString path =
                QStringLiteral("%1[%2]").arg(r.pathOf(QStringLiteral("parents"))).arg(i);
            if (!array.at(i).isObject())
                throw Invalid{path, QStringLiteral("must be an object")};
            d.parents << readParent(ObjectReader(array.at(i).toObject(), path));
        }
    }
    ObjectReader budget = r.object(QStringLiteral("retryBudget"));
    d.maxRequeues =
        static_cast<int>(budget.integer(QStringLiteral("maxRequeues"), d.maxRequeues, 0, 1000));
    d.requeueWindow = std::chrono::seconds(
        budget.integer(QStringLiteral("windowSeconds"), d.requeueWindow.count(), 1, 365LL * 86400));
    budget.rejectUnknownKeys();
    readDomainPolicy(r, d, runPolicy);
    r.rejectUnknownKeys();
    return d;
}

// PostgreSQL is told the zone with SET TimeZone; an unknown one used to pass here and fail
// every run with a driver message. QTimeZone reads the same IANA database.
void requireTimeZone(const QString &zone, const QString &path)
{
    // Only IANA-shaped names: QTimeZone also resolves paths ("Europe/../Europe/Berlin"), the
    // empty name (the system zone) and its own offset ids ("UTC+05:00", "UTC+5"), which
    // PostgreSQL reads as POSIX zones with the opposite sign.
    static const QRegularExpression ianaShaped(
        QStringLiteral("^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_][A-Za-z0-9_+-]*)*$"));
    static const QRegularExpression qtOffsetId(QStringLiteral("^(UTC|GMT)[+-]"),
                                               QRegularExpression::CaseInsensitiveOption);
    if (!ianaShaped.match(zone).hasMatch() || qtOffsetId.match(zone).hasMatch() ||
        !QTimeZone(zone.toUtf8()).isValid())
        throw Invalid{path, QStringLiteral("'%1' is not a known time zone (use an IANA name such "
                                           "as UTC or Europe/Berlin)")
                                .arg(zone)};
}

// A run renews its lock only before a write (and after an enqueue), and only once a third of
// the TTL has passed (LockLease::confirm). In the worst case a write starts just before that
// point and blocks for one full wait - a statement waiting out postgresTimeoutMs on a table
// lock, or an enqueue its redisTimeoutMs - and then the renewal itself waits up to
// redisTimeoutMs: TTL/3 + pg + redis must stay below the TTL, i.e. TTL >= 1.5 x (pg + redis).
// Three times the larger timeout covers that (3 x max >= 1.5 x (pg + redis)) and is a rule an
// operator can check at a glance. The fence still stops a run that lost its lock from
// writing; this keeps an ordinary slow write from losing it in the first place.
constexpr qint64 kLockTtlPerLongestWait = 3;

void requireLockOutlastsWaits(const RunSettings &s, const ObjectReader &r)
{
    const qint64 longestMs = std::max<qint64>(s.postgresTimeout.count(), s.redisTimeout.count());
    const qint64 minimumS = (kLockTtlPerLongestWait * longestMs + 999) / 1000;
    if (s.lockTtl.count() < minimumS)
        throw Invalid{r.pathOf(QStringLiteral("lockTtlSeconds")),
                      QStringLiteral("%1 s is too short: it must be at least %2 s, %3 times the "
                                     "longest single wait of a run (%4 %5 ms, %6 %7 ms), or the "
                                     "lock can expire while a run waits")
                          .arg(s.lockTtl.count())
                          .arg(minimumS)
                          .arg(kLockTtlPerLongestWait)
                          .arg(r.pathOf(QStringLiteral("postgresTimeoutMs")))
                          .arg(s.postgresTimeout.count())
                          .arg(r.pathOf(QStringLiteral("redisTimeoutMs")))
                          .arg(s.redisTimeout.count())};
}

RunSettings readRun(ObjectReader r)
{
    RunSettings s;
    s.lockKey = r.string(QStringLiteral("lockKey"), s.lockKey);
    s.lockTtl = std::chrono::seconds(
        r.integer(QStringLiteral("lockTtlSeconds"), s.lockTtl.count(), 2, 86400));
    s.interval = std::chrono::seconds(
        r.integer(QStringLiteral("intervalSeconds"), s.interval.count(),
                  RunSettings::kMinIntervalSeconds, RunSettings::kMaxIntervalSeconds));
    s.redisTimeout = std::chrono::milliseconds(
        r.integer(QStringLiteral("redisTimeoutMs"), s.redisTimeout.count(), 50, 600000));
    s.postgresTimeout = std::chrono::milliseconds(
        r.integer(QStringLiteral("postgresTimeoutMs"), s.postgresTimeout.count(), 100, 600000));
    s.scanPageSize =
        static_cast<int>(r.integer(QStringLiteral("scanPageSize"), s.scanPageSize, 1, 10000));
    s.probeBatchSize =
        static_cast<int>(r.integer(QStringLiteral("probeBatchSize"), s.probeBatchSize, 1, 100000));
    s.listProbeLimit = static_cast<int>(
        r.integer(QStringLiteral("listProbeLimit"), s.listProbeLimit, 0, 10000000));
    s.scheduledListed = static_cast<int>(
        r.integer(QStringLiteral("scheduledListed"), s.scheduledListed, 0, 10000000));
    s.policy = readPolicy(r, QStringLiteral("policy"), s.policy);
    s.guard = readGuard(r.object(QStringLiteral("guard")));
    s.timeZone = r.string(QStringLiteral("timeZone"), s.timeZone);
    r.rejectUnknownKeys();
    if (s.lockKey.isEmpty())
        throw Invalid{r.pathOf(QStringLiteral("lockKey")), QStringLiteral("must not be empty")};
    requireTimeZone(s.timeZone, r.pathOf(QStringLiteral("timeZone")));
    requireLockOutlastsWaits(s, r);
    return s;
}

// The URL comes from the environment first, then the file; errors never echo the URL itself.
template <typename Endpoint, typename Parser>
Endpoint readEndpoint(ObjectReader &connections, const QString &key, const QString &envName,
                      const QProcessEnvironment &env, Parser parse)
{
    const QString fromFile = connections.string(key, {});
    const QString fromEnv = env.value(envName);
    const QString url = fromEnv.isEmpty() ? fromFile : fromEnv;
    const QString where =
        fromEnv.isEmpty() ? connections.pathOf(key) : QStringLiteral("$%1").arg(envName);
    if (url.isEmpty())
        throw Invalid{connections.pathOf(key),
                      QStringLiteral("is not set (set it in the file or in $%1)").arg(envName)};
    auto parsed = parse(url);
    if (!parsed)
        throw Invalid{where, parsed.error()};
    return *parsed;
}

// On a Redis Cluster a script touches one slot: BullMQ's own scripts need a queue's keys to
// share a hash tag, and Reclaim's lock script needs the lock and its generation to. A key
// without one is refused here, naming the domain or setting, rather than at the first write.
void requireHashTags(const ReclaimConfig &config, const QString &redisUrlKey)
{
    const QByteArray lock = config.run.lockKey.toUtf8();
    if (clusterHashTag(lock).size() == lock.size())
        throw Invalid{QStringLiteral("run.lockKey"),
                      QStringLiteral("'%1' has no hash tag, and %2 is a Redis Cluster: the lock "
                                     "and its generation must share a slot (write it as, for "
                                     "example, '{reclaim}:%1')")
                          .arg(config.run.lockKey, redisUrlKey)};
    for (qsizetype i = 0; i < config.domains.size(); ++i) {
        const DomainConfig &d = config.domains.at(i);
        for (const QString &q : d.queues) {
            const QByteArray base =
                (d.keyPrefix + QLatin1Char(':') + q + QLatin1Char(':')).toUtf8();
            if (clusterHashTag(base).size() == base.size())
                throw Invalid{QStringLiteral("domains[%1].keyPrefix").arg(i),
                              QStringLiteral("domain %1: queue %2 with prefix '%3' has no hash "
                                             "tag, and %4 is a Redis Cluster: BullMQ needs a "
                                             "queue's keys in one slot (a prefix such as "
                                             "'{%3}', or a queue name such as '{%2}')")
                                  .arg(d.name, q, d.keyPrefix, redisUrlKey)};
        }
    }
}

// connections.redisTls: the files and names of a rediss:// connection. Every file is read and
// parsed now, so a missing or unreadable one is a configuration error naming its key and path
// rather than a failed run later.
void readRedisTls(ObjectReader r, RedisEndpoint &redis, const QString &urlKey)
{
    const bool given = !r.isEmpty();
    redis.tls.caFile = r.string(QStringLiteral("ca"), {});
    redis.tls.certFile = r.string(QStringLiteral("cert"), {});
    redis.tls.keyFile = r.string(QStringLiteral("key"), {});
    redis.tls.serverName = r.string(QStringLiteral("serverName"), {});
    redis.tls.insecure = r.boolean(QStringLiteral("insecure"), false);
    r.rejectUnknownKeys();
    if (given && !redis.tls.enabled)
        throw Invalid{r.path(),
                      QStringLiteral("is set, but %1 is not a rediss:// URL: the connection "
                                     "would not use TLS")
                          .arg(urlKey)};
    if (redis.tls.certFile.isEmpty() != redis.tls.keyFile.isEmpty()) {
        const QString missing =
            redis.tls.certFile.isEmpty() ? QStringLiteral("cert") : QStringLiteral("key");
        throw Invalid{
            r.pathOf(missing),
            QStringLiteral("is required with %1: a client certificate needs both")
                .arg(r.pathOf(missing == QLatin1String("cert") ? QStringLiteral("key")
                                                               : QStringLiteral("cert")))};
    }
    if (redis.tls.insecure && !redis.tls.caFile.isEmpty())
        throw Invalid{r.pathOf(QStringLiteral("insecure")),
                      QStringLiteral("true turns off the verification %1 is for: give one of "
                                     "the two")
                          .arg(r.pathOf(QStringLiteral("ca")))};
    const auto files = loadTlsFiles(redis.tls);
    if (!files)
        throw Invalid{r.pathOf(files.error().key), files.error().problem};
}

// connections.redisSentinel: the sentinels' own user and password (Sentinel's `requirepass`, or
// an ACL user on the sentinels), apart from the URL's, which are the master's.
void readRedisSentinel(ObjectReader r, RedisEndpoint &redis, const QString &urlKey)
{
    const bool given = !r.isEmpty();
    const QString user = r.string(QStringLiteral("user"), {});
    const QString password = r.string(QStringLiteral("password"), {});
    r.rejectUnknownKeys();
    if (!given)
        return;
    if (!redis.sentinel)
        throw Invalid{r.path(), QStringLiteral("is set, but %1 is not a redis[s]+sentinel:// URL: "
                                               "there are no sentinels to use it with")
                                    .arg(urlKey)};
    if (password.isEmpty())
        throw Invalid{r.pathOf(QStringLiteral("password")),
                      user.isEmpty() ? QStringLiteral("is required: the sentinels' password")
                                     : QStringLiteral("is required with %1: a user without its "
                                                      "password would be the default user")
                                           .arg(r.pathOf(QStringLiteral("user")))};
    redis.sentinel->user = user;
    redis.sentinel->password = password;
}

} // namespace

Expected<ReclaimConfig, ConfigError> ConfigLoader::loadFile(const QString &path,
                                                            const QProcessEnvironment &env)
{
    QFile file(path);
    if (!file.exists())
        return unexpected(ConfigError{path, {}, QStringLiteral("no such file")});
    if (!file.open(QIODevice::ReadOnly))
        return unexpected(
            ConfigError{path, {}, QStringLiteral("cannot read: %1").arg(file.errorString())});
    return loadJson(file.readAll(), path, env);
}

Expected<ReclaimConfig, ConfigError> ConfigLoader::loadJson(const QByteArray &json,
                                                            const QString &origin,
                                                            const QProcessEnvironment &env)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const qsizetype line = json.left(parseError.offset).count('\n') + 1;
        return unexpected(ConfigError{origin,
                                      {},
                                      QStringLiteral("not valid JSON at line %1: %2")
                                          .arg(line)
                                          .arg(parseError.errorString())});
    }
    if (!doc.isObject())
        return unexpected(
            ConfigError{origin, {}, QStringLiteral("the top level must be a JSON object")});

    try {
        ReclaimConfig config;
        config.sourcePath = origin;
        ObjectReader root(doc.object(), {});
        ObjectReader connections = root.object(QStringLiteral("connections"));
        config.postgres =
            readEndpoint<PostgresEndpoint>(connections, QStringLiteral("postgresUrl"),
                                           QStringLiteral("RECLAIM_PG_URL"), env, parsePostgresUrl);
        config.redis = readEndpoint<RedisEndpoint>(
            connections, QStringLiteral("redisUrl"), QStringLiteral("RECLAIM_REDIS_URL"), env,
            [](const QString &url) { return parseRedisUrl(url); });
        const QString redisUrlKey = env.value(QStringLiteral("RECLAIM_REDIS_URL")).isEmpty()
                                        ? connections.pathOf(QStringLiteral("redisUrl"))
                                        : QStringLiteral("$RECLAIM_REDIS_URL");
        readRedisTls(connections.object(QStringLiteral("redisTls")), config.redis, redisUrlKey);
        readRedisSentinel(connections.object(QStringLiteral("redisSentinel")), config.redis,
                          redisUrlKey);
        connections.rejectUnknownKeys();
        config.run = readRun(root.object(QStringLiteral("run")));

        const QJsonValue domains = root.take(QStringLiteral("domains"));
        if (!domains.isArray() || domains.toArray().isEmpty())
            throw Invalid{QStringLiteral("domains"),
                          QStringLiteral("must be a non-empty list of domains")};
        QSet<QString> names;
        const QJsonArray array = domains.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString path = QStringLiteral("domains[%1]").arg(i);
            if (!array.at(i).isObject())
                throw Invalid{path, QStringLiteral("must be an object")};
            DomainConfig d =
                readDomain(ObjectReader(array.at(i).toObject(), path), config.run.policy);
            if (names.contains(d.name))
                throw Invalid{path + QStringLiteral(".name"),
                              QStringLiteral("'%1' is used by another domain").arg(d.name)};
            names.insert(d.name);
            // One queue is one layout: two domains sharing it must not assume two majors.
            for (const DomainConfig &other : std::as_const(config.domains))
                if (other.keyPrefix == d.keyPrefix &&
                    other.bullmqIfUnstamped != d.bullmqIfUnstamped)
                    for (const QString &q : d.queues)
                        if (other.queues.contains(q))
                            throw Invalid{path + QStringLiteral(".bullmqIfUnstamped"),
                                          QStringLiteral("queue %1 is also in domain %2, which "
                                                         "assumes %3 for it: one queue, one "
                                                         "BullMQ major")
                                              .arg(q, other.name,
                                                   other.bullmqIfUnstamped.isEmpty()
                                                       ? QStringLiteral("none")
                                                       : other.bullmqIfUnstamped)};
            config.domains << d;
        }
        if (config.redis.cluster)
            requireHashTags(config, redisUrlKey);
        root.rejectUnknownKeys();
        return config;
    } catch (const Invalid &invalid) {
        return unexpected(ConfigError{origin, invalid.keyPath, invalid.problem});
    }
}

} // namespace reclaim
