// The status bar's connection line: when PostgreSQL was last read, whether Redis answers and how
// fast, which configuration is loaded, and whether this console may write.
#pragma once

#include "config/reclaimconfig.h"
#include "service/recoveryworker.h"

#include <QWidget>

class QLabel;

namespace reclaim::ui {

class ConnectionStatus final : public QWidget
{
    Q_OBJECT
public:
    explicit ConnectionStatus(bool readOnly, QWidget *parent = nullptr);

    void setDatabaseRead(const QDateTime &at);
    void setDatabaseFailed(const QDateTime &at, const QString &detail);
    void setRedis(const LockStatus &status);
    void setConfig(const ReclaimConfig &config);
    void setConfigMissing(const QString &path);
    QString redisText() const;

private:
    QLabel *m_database;
    QLabel *m_redis;
    QLabel *m_config;
};

} // namespace reclaim::ui
