// The console's remembered settings: typed accessors over QSettings, keys grouped by prefix.
// Connection URLs are stored without their password, always.
#pragma once

#include <QByteArray>
#include <QString>
#include <memory>
#include <optional>

class QSettings;

namespace reclaim::ui {

class Settings final
{
public:
    // The user's native settings ("Reclaim" / "reclaim-console").
    Settings();
    // An INI file of its own: tests, and --screenshot runs that must not touch the user's.
    explicit Settings(const QString &iniPath);
    ~Settings();
    Q_DISABLE_COPY_MOVE(Settings)

    QString configPath() const;
    void setConfigPath(const QString &path);
    QString postgresUrl() const;
    void setPostgresUrl(const QString &url); // the password, if any, is dropped
    QString redisUrl() const;
    void setRedisUrl(const QString &url);
    // The profile's rediss:// files and server name (paths and a name, no secret): "ca",
    // "cert", "key" or "serverName".
    QString redisTls(const QString &key) const;
    void setRedisTls(const QString &key, const QString &value);

    // Seconds between automatic runs; 0 = off; nullopt = not chosen (use the config's interval).
    std::optional<int> autoRefreshSeconds() const;
    void setAutoRefreshSeconds(int seconds);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray splitterState(const QString &name) const;
    void setSplitterState(const QString &name, const QByteArray &state);

    void sync();

    // `url` with any password removed (user names and everything else kept).
    static QString withoutPassword(const QString &url);

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace reclaim::ui
