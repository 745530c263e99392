#include "connectionstatus.h"

#include "config/connectionurl.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>

namespace reclaim::ui {

namespace {
QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}
} // namespace

ConnectionStatus::ConnectionStatus(bool readOnly, QWidget *parent)
    : QWidget(parent), m_database(new QLabel(QStringLiteral("Database: not read yet"), this)),
      m_redis(new QLabel(QStringLiteral("Redis: not checked yet"), this)),
      m_config(new QLabel(this))
{
    auto *mode =
        new QLabel(readOnly ? QStringLiteral("<b>READ-ONLY</b>: shows everything, writes nothing")
                            : QStringLiteral("Approvals on, one action at a time"),
                   this);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(16);
    layout->addWidget(m_database);
    layout->addWidget(m_redis);
    layout->addWidget(m_config, 1);
    layout->addWidget(mode);
}

void ConnectionStatus::setDatabaseRead(const QDateTime &at)
{
    m_database->setText(QStringLiteral("Database: \u2713 read at %1").arg(hhmmss(at)));
    m_database->setToolTip({});
}

void ConnectionStatus::setDatabaseFailed(const QDateTime &at, const QString &detail)
{
    m_database->setText(QStringLiteral("Database: \u2715 run failed at %1").arg(hhmmss(at)));
    m_database->setToolTip(redactSecrets(detail));
}

void ConnectionStatus::setRedis(const LockStatus &status)
{
    if (status.reachable) {
        m_redis->setText(QStringLiteral("Redis: \u2713 reachable, %1 ms").arg(status.latencyMs));
        m_redis->setToolTip({});
    } else {
        m_redis->setText(QStringLiteral("Redis: \u2715 unreachable"));
        m_redis->setToolTip(redactSecrets(status.error));
    }
}

void ConnectionStatus::setConfig(const ReclaimConfig &config)
{
    const QString insecure = config.redis.tls.insecureWarning(config.redis.serverName());
    // Verification off is in the status bar itself, not only in a tooltip.
    m_config->setText(
        QStringLiteral("Config: %1%2")
            .arg(QFileInfo(config.sourcePath).fileName(),
                 insecure.isEmpty() ? QString() : QStringLiteral(" \u26a0 TLS verification OFF")));
    m_config->setToolTip(
        QStringLiteral("%1\nPostgreSQL %2\nRedis %3%4")
            .arg(config.sourcePath, config.postgres.redacted(), config.redis.redacted(),
                 insecure.isEmpty() ? QString() : QStringLiteral("\n") + insecure));
}

void ConnectionStatus::setConfigMissing(const QString &path)
{
    m_config->setText(QStringLiteral("Config: not loaded (%1)").arg(path));
    m_config->setToolTip({});
}

QString ConnectionStatus::redisText() const
{
    return m_redis->text();
}

} // namespace reclaim::ui
