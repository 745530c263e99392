// The password of a connection URL, taken out of it, for every form the console accepts: one
// host (redis://, rediss://, postgresql://), a socket (unix:///path) and a list of hosts
// (redis+sentinel://h1:26379,h2:26379/mymaster, redis+cluster://h1:7000,h2:7001), which QUrl
// refuses as a whole ("h1:7000,h2" is no host). The URL is kept as typed except for the secret.
#pragma once

#include <QString>
#include <optional>

namespace reclaim::ui {

struct UrlWithoutPassword
{
    QString url;      // "redis+cluster://reclaim@h1:7000,h2:7001": no ":password" in it
    QString password; // percent-decoded; empty when the URL had none
};

// Nullopt when `text` is not "scheme://..." at all: what cannot be parsed is never stored.
std::optional<UrlWithoutPassword> takeUrlPassword(const QString &text);

// Which Redis deployment a URL names, by its scheme; the console's connection dialog offers
// the form and rewrites the scheme when the operator picks another.
enum class RedisForm
{
    SingleNode, // redis://, rediss://, unix://
    Sentinel,   // redis+sentinel://, rediss+sentinel://
    Cluster     // redis+cluster://, rediss+cluster://
};

std::optional<RedisForm> redisFormOf(const QString &url);

// `url` with the scheme of `form`, TLS kept ("rediss://h" as Cluster is "rediss+cluster://h"; a
// bare "h:6379" gets one); empty when the URL cannot take that form (a Unix socket has no
// sentinels or cluster).
QString withRedisForm(const QString &url, RedisForm form);

} // namespace reclaim::ui
