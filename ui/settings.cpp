#include "settings.h"

#include "urlpassword.h"

#include <QSettings>
#include <QUrl>

namespace reclaim::ui {

namespace {
// One prefix per concern, so a key's owner is obvious and nothing collides.
const QString kProfile = QStringLiteral("profile/");
const QString kRuns = QStringLiteral("runs/");
const QString kWindow = QStringLiteral("window/");
} // namespace

Settings::Settings()
    : m_settings(std::make_unique<QSettings>(QSettings::NativeFormat, QSettings::UserScope,
                                             QStringLiteral("Reclaim"),
                                             QStringLiteral("reclaim-console")))
{}

Settings::Settings(const QString &iniPath)
    : m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat))
{}

Settings::~Settings() = default;

QString Settings::withoutPassword(const QString &url)
{
    const auto taken = takeUrlPassword(url);
    // What cannot be parsed is never stored: it could hold a password in a place not looked at.
    return taken ? taken->url : QString();
}

QString Settings::configPath() const
{
    return m_settings->value(kProfile + QStringLiteral("configPath")).toString();
}

void Settings::setConfigPath(const QString &path)
{
    m_settings->setValue(kProfile + QStringLiteral("configPath"), path);
}

QString Settings::postgresUrl() const
{
    return withoutPassword(m_settings->value(kProfile + QStringLiteral("postgresUrl")).toString());
}

void Settings::setPostgresUrl(const QString &url)
{
    m_settings->setValue(kProfile + QStringLiteral("postgresUrl"), withoutPassword(url));
}

QString Settings::redisTls(const QString &key) const
{
    return m_settings->value(kProfile + QStringLiteral("redisTls/") + key).toString();
}

void Settings::setRedisTls(const QString &key, const QString &value)
{
    m_settings->setValue(kProfile + QStringLiteral("redisTls/") + key, value);
}

QString Settings::redisUrl() const
{
    return withoutPassword(m_settings->value(kProfile + QStringLiteral("redisUrl")).toString());
}

void Settings::setRedisUrl(const QString &url)
{
    m_settings->setValue(kProfile + QStringLiteral("redisUrl"), withoutPassword(url));
}

std::optional<int> Settings::autoRefreshSeconds() const
{
    const QVariant v = m_settings->value(kRuns + QStringLiteral("autoRefreshSeconds"));
    bool ok = false;
    const int seconds = v.toInt(&ok);
    if (!v.isValid() || !ok || seconds < 0)
        return std::nullopt;
    return seconds;
}

void Settings::setAutoRefreshSeconds(int seconds)
{
    m_settings->setValue(kRuns + QStringLiteral("autoRefreshSeconds"), seconds);
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(kWindow + QStringLiteral("geometry")).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings->setValue(kWindow + QStringLiteral("geometry"), geometry);
}

QByteArray Settings::splitterState(const QString &name) const
{
    return m_settings->value(kWindow + QStringLiteral("splitter/") + name).toByteArray();
}

void Settings::setSplitterState(const QString &name, const QByteArray &state)
{
    m_settings->setValue(kWindow + QStringLiteral("splitter/") + name, state);
}

void Settings::sync()
{
    m_settings->sync();
}

} // namespace reclaim::ui
