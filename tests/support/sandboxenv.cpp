#include "support/sandboxenv.h"

#include "config/configloader.h"

#include <QFile>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTest>
#include <QUuid>

namespace reclaim::test {

bool sandboxRequired()
{
    const QString ci = qEnvironmentVariable("CI").toLower();
    return ci == QLatin1String("true") || ci == QLatin1String("1") ||
           qEnvironmentVariable("RECLAIM_REQUIRE_SANDBOX") == QLatin1String("1");
}

SandboxEnv SandboxEnv::load()
{
    SandboxEnv env;
    const QString path = qEnvironmentVariable("RECLAIM_SANDBOX_ENV");
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
        return env;
    static const QRegularExpression line(QStringLiteral("^export (\\w+)='(.*)'$"));
    QHash<QString, QString> values;
    for (const QByteArray &raw : file.readAll().split('\n')) {
        const auto m = line.match(QString::fromUtf8(raw));
        if (m.hasMatch())
            values.insert(m.captured(1), m.captured(2));
    }
    env.pgUrl = values.value(QStringLiteral("RECLAIM_PG_URL"));
    env.redisUrl = values.value(QStringLiteral("RECLAIM_REDIS_URL"));
    env.dir = values.value(QStringLiteral("RECLAIM_SANDBOX_DIR"));
    env.redisPort = values.value(QStringLiteral("RECLAIM_SANDBOX_REDIS_PORT")).toInt();
    env.redisPidFile = values.value(QStringLiteral("RECLAIM_SANDBOX_REDIS_PIDFILE"));
    env.pgData = values.value(QStringLiteral("RECLAIM_SANDBOX_PG_DATA"));
    env.pgPort = values.value(QStringLiteral("RECLAIM_SANDBOX_PG_PORT")).toInt();
    env.clusterUrl = values.value(QStringLiteral("RECLAIM_CLUSTER_URL"));
    for (const QString &port : values.value(QStringLiteral("RECLAIM_SANDBOX_CLUSTER_PORTS"))
                                   .split(QLatin1Char(' '), Qt::SkipEmptyParts))
        env.clusterPorts << port.toInt();
    return env;
}

QProcessEnvironment SandboxEnv::processEnvironment() const
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("RECLAIM_PG_URL"), pgUrl);
    e.insert(QStringLiteral("RECLAIM_REDIS_URL"), redisUrl);
    return e;
}

qint64 SandboxEnv::redisPid() const
{
    QFile f(redisPidFile);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return f.readAll().trimmed().toLongLong();
}

QList<QVariantList> sql(const SandboxEnv &env, const QString &statement, const QVariantList &binds)
{
    const auto pg = parsePostgresUrl(env.pgUrl);
    if (!pg) {
        QTest::qFail("bad sandbox URL", __FILE__, __LINE__);
        return {};
    }
    const QString name = QStringLiteral("test-") + QUuid::createUuid().toString();
    QList<QVariantList> rows;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
        db.setHostName(pg->host);
        db.setPort(pg->port);
        db.setUserName(pg->user);
        db.setPassword(pg->password);
        db.setDatabaseName(pg->database);
        if (!db.open()) {
            QTest::qFail(qPrintable(db.lastError().text()), __FILE__, __LINE__);
        } else {
            {
                QSqlQuery q(db);
                // PostgreSQL cannot PREPARE DDL: only statements with bound values are prepared.
                bool ok = false;
                if (binds.isEmpty()) {
                    ok = q.exec(statement);
                } else {
                    q.prepare(statement);
                    for (const QVariant &b : binds)
                        q.addBindValue(b);
                    ok = q.exec();
                }
                if (!ok) {
                    QTest::qFail(
                        qPrintable(QStringLiteral("%1: %2").arg(statement, q.lastError().text())),
                        __FILE__, __LINE__);
                } else {
                    while (q.next()) {
                        QVariantList row;
                        for (int i = 0; i < q.record().count(); ++i)
                            row << q.value(i);
                        rows << row;
                    }
                }
            }
            db.close();
        }
    }
    QSqlDatabase::removeDatabase(name);
    return rows;
}

RedisConnection redis(const SandboxEnv &env)
{
    auto endpoint = parseRedisUrl(env.redisUrl);
    auto conn = RedisConnection::open(*endpoint, std::chrono::milliseconds(3000));
    if (!conn)
        qFatal("cannot connect to the sandbox redis: %s", qPrintable(conn.error().describe()));
    return std::move(*conn);
}

void resetSandbox(const SandboxEnv &env)
{
    auto r = redis(env);
    r.command({QByteArrayLiteral("FLUSHALL")});
    sql(env, QStringLiteral("DROP SCHEMA IF EXISTS reclaim CASCADE"));
    sql(env, QStringLiteral("DROP SCHEMA IF EXISTS public CASCADE"));
    sql(env, QStringLiteral("CREATE SCHEMA public"));
}

void openAppQueues(const SandboxEnv &env, const ReclaimConfig &config)
{
    auto r = redis(env);
    for (const DomainConfig &d : config.domains)
        for (const QString &queue : d.queues) {
            const auto set =
                r.command({QByteArrayLiteral("HSETNX"),
                           QStringLiteral("%1:%2:meta").arg(d.keyPrefix, queue).toUtf8(),
                           QByteArrayLiteral("version"), QByteArrayLiteral("bullmq:6.7.0")});
            QVERIFY2(set, qPrintable(set ? QString() : set.error().describe()));
        }
}

ReclaimConfig sampleConfig(const SandboxEnv &env)
{
    auto config =
        ConfigLoader::loadFile(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"),
                               env.processEnvironment());
    if (!config)
        qFatal("sample config does not load: %s", qPrintable(config.error().toString()));
    return *config;
}

} // namespace reclaim::test
