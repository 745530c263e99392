#include "urlpassword.h"

#include <QUrl>

namespace reclaim::ui {

namespace {

// The URL's scheme and what follows "://", or nullopt.
std::optional<std::pair<QString, QString>> splitScheme(const QString &text)
{
    const qsizetype sep = text.indexOf(QLatin1String("://"));
    if (sep <= 0)
        return std::nullopt;
    return std::make_pair(text.left(sep).toLower(), text.mid(sep + 3));
}

bool isTls(const QString &scheme)
{
    return scheme.startsWith(QLatin1String("rediss"));
}

} // namespace

std::optional<UrlWithoutPassword> takeUrlPassword(const QString &text)
{
    const QString trimmed = text.trimmed();
    const auto parts = splitScheme(trimmed);
    if (!parts)
        return std::nullopt;
    const QString &rest = parts->second;
    // The authority ends at the first '/', '?' or '#'; its user info at the last '@' in it (an
    // '@' in a password is written %40, as README's connection forms say).
    qsizetype end = rest.size();
    for (QChar c : {QLatin1Char('/'), QLatin1Char('?'), QLatin1Char('#')}) {
        const qsizetype at = rest.indexOf(c);
        if (at >= 0 && at < end)
            end = at;
    }
    const qsizetype at = rest.lastIndexOf(QLatin1Char('@'), end - 1);
    if (at < 0 || end == 0)
        return UrlWithoutPassword{trimmed, {}};
    const QString userInfo = rest.left(at);
    const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
    if (colon < 0)
        return UrlWithoutPassword{trimmed, {}};
    const QString user = userInfo.left(colon);
    const QString password = QUrl::fromPercentEncoding(userInfo.mid(colon + 1).toUtf8());
    const QString head = trimmed.left(trimmed.size() - rest.size());
    // "redis://:secret@host" becomes "redis://host", not "redis://@host".
    const QString kept = user.isEmpty() ? QString() : user + QLatin1Char('@');
    return UrlWithoutPassword{head + kept + rest.mid(at + 1), password};
}

std::optional<RedisForm> redisFormOf(const QString &url)
{
    const auto parts = splitScheme(url.trimmed());
    if (!parts)
        return std::nullopt;
    const QString &s = parts->first;
    if (s == QLatin1String("redis") || s == QLatin1String("rediss") || s == QLatin1String("unix"))
        return RedisForm::SingleNode;
    if (s == QLatin1String("redis+sentinel") || s == QLatin1String("rediss+sentinel"))
        return RedisForm::Sentinel;
    if (s == QLatin1String("redis+cluster") || s == QLatin1String("rediss+cluster"))
        return RedisForm::Cluster;
    return std::nullopt;
}

QString withRedisForm(const QString &url, RedisForm form)
{
    const QString trimmed = url.trimmed();
    auto parts = splitScheme(trimmed);
    if (!parts) // "host:6379", typed without a scheme
        parts = std::make_pair(QStringLiteral("redis"), trimmed);
    if (parts->first == QLatin1String("unix"))
        return form == RedisForm::SingleNode ? trimmed : QString();
    const QString base = isTls(parts->first) ? QStringLiteral("rediss") : QStringLiteral("redis");
    const QString scheme = form == RedisForm::Sentinel  ? base + QLatin1String("+sentinel")
                           : form == RedisForm::Cluster ? base + QLatin1String("+cluster")
                                                        : base;
    return scheme + QLatin1String("://") + parts->second;
}

} // namespace reclaim::ui
