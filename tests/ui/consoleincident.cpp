#include "consoleincident.h"

#include "config/connectionurl.h"
#include "settings.h"

#include <QTest>

namespace reclaim::test {

ConsoleIncident::ConsoleIncident(int seed) : m_env(SandboxEnv::load())
{
    if (m_env.pgUrl.isEmpty())
        return;
    resetSandbox(m_env);
    migrate(m_env);
    m_incident = std::make_unique<SeededIncident>(m_env, seed, 1, true);
    if (!m_incident->ready())
        return;
    // An image orphan whose current job id now names a string key: the lookup script's HMGET
    // fails with WRONGTYPE, which must read as "could not look", never as "not there".
    const QJsonObject orphan =
        row(QStringLiteral("orphan-processing-no-queue-entry"), QStringLiteral("image"));
    if (orphan.isEmpty())
        return;
    const QString queue = QStringLiteral("image-render");
    auto r = redis(m_env);
    const QByteArray key = QStringLiteral("bull:%1:%2")
                               .arg(queue, orphan.value(QStringLiteral("currentJobId")).toString())
                               .toUtf8();
    if (!r.command({QByteArrayLiteral("SET"), key, QByteArrayLiteral("not-a-hash")}))
        return;
    m_unknownKey = keyOf(orphan);
    m_ready = true;
}

ConsoleIncident::~ConsoleIncident() = default;

QJsonObject ConsoleIncident::row(const QString &kind, const QString &domain) const
{
    for (const QJsonObject &o : m_incident->rowsOfKind(kind))
        if (domain.isEmpty() || o.value(QStringLiteral("domain")).toString() == domain)
            return o;
    return {};
}

QString ConsoleIncident::keyOf(const QJsonObject &row)
{
    return row.value(QStringLiteral("domain")).toString() + QLatin1Char('/') +
           row.value(QStringLiteral("id")).toString();
}

ui::ConnectionProfile ConsoleIncident::profile() const
{
    ui::ConnectionProfile p;
    p.configPath = QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");
    p.postgresUrl = ui::Settings::withoutPassword(m_env.pgUrl);
    p.redisUrl = ui::Settings::withoutPassword(m_env.redisUrl);
    p.postgresPassword = parsePostgresUrl(m_env.pgUrl)->password;
    p.redisPassword = parseRedisUrl(m_env.redisUrl)->password;
    return p;
}

} // namespace reclaim::test
