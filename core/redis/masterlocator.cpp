#include "redis/masterlocator.h"

#include <QStringList>

namespace reclaim {

namespace {

QString nodeName(const SentinelSpec::Node &node)
{
    return (node.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2")
                                                 : QStringLiteral("%1:%2"))
        .arg(node.host)
        .arg(node.port);
}

// The endpoint of one sentinel: the sentinels' own credentials, never the URL's (those are the
// master's), and no database (a sentinel has none); anything else the endpoint carries, TLS
// for example, is the deployment's and applies to the sentinels too.
RedisEndpoint sentinelEndpoint(const RedisEndpoint &endpoint, const SentinelSpec::Node &node)
{
    RedisEndpoint e = endpoint;
    e.sentinel.reset();
    e.host = node.host;
    e.port = node.port;
    e.user = endpoint.sentinel->user;
    e.password = endpoint.sentinel->password;
    e.database = 0;
    return e;
}

// What one sentinel says the master is, or why it said nothing usable.
Expected<SentinelSpec::Node, QString> askOne(const RedisEndpoint &endpoint,
                                             const SentinelSpec::Node &node,
                                             std::chrono::milliseconds timeout)
{
    // A sentinel with a password of its own answers NOAUTH to one who gave none: at the TLS
    // connection's first PING, or at the question.
    const auto refusal = [&](const RedisError &e) {
        const bool wantsPassword =
            e.kind == RedisError::Kind::Auth && endpoint.sentinel->password.isEmpty();
        return e.message + (wantsPassword ? QStringLiteral(" (a sentinel that requires a "
                                                           "password of its own: set "
                                                           "connections.redisSentinel.password)")
                                          : QString());
    };
    auto conn = RedisConnection::open(sentinelEndpoint(endpoint, node), timeout);
    if (!conn)
        return unexpected(refusal(conn.error()));
    const QString &master = endpoint.sentinel->masterName;
    auto reply = conn->command({QByteArrayLiteral("SENTINEL"),
                                QByteArrayLiteral("get-master-addr-by-name"), master.toUtf8()});
    if (!reply)
        return unexpected(reply.error().kind == RedisError::Kind::Auth
                              ? refusal(reply.error())
                              : QStringLiteral("%1 refused SENTINEL get-master-addr-by-name: %2")
                                    .arg(nodeName(node), reply.error().message));
    if (reply->isNil())
        return unexpected(
            QStringLiteral("%1 does not monitor a master named '%2'").arg(nodeName(node), master));
    if (!reply->isArray() || reply->elements.size() != 2)
        return unexpected(QStringLiteral("%1 gave an unexpected reply to SENTINEL "
                                         "get-master-addr-by-name")
                              .arg(nodeName(node)));
    SentinelSpec::Node found;
    found.host = reply->elements.at(0).toText();
    bool ok = false;
    found.port = reply->elements.at(1).toText().toInt(&ok);
    if (found.host.isEmpty() || !ok || found.port < 1 || found.port > 65535)
        return unexpected(QStringLiteral("%1 named a master address that is not host and port")
                              .arg(nodeName(node)));
    return found;
}

} // namespace

std::optional<RedisError> notMaster(RedisConnection &conn)
{
    auto role = conn.command({QByteArrayLiteral("ROLE")});
    if (!role)
        return RedisError{role.error().kind == RedisError::Kind::Server ? RedisError::Kind::Connect
                                                                        : role.error().kind,
                          QStringLiteral("cannot confirm that %1 is the master (ROLE): %2")
                              .arg(conn.endpointName(), role.error().message)};
    const QString name =
        role->isArray() && !role->elements.isEmpty() ? role->elements.first().toText() : QString();
    if (name == QLatin1String("master"))
        return std::nullopt;
    QString what = name.isEmpty() ? QStringLiteral("an unknown role") : name;
    if (name == QLatin1String("slave") && role->elements.size() >= 3)
        what = QStringLiteral("a replica of %1:%2")
                   .arg(role->elements.at(1).toText(), role->elements.at(2).toText());
    return RedisError{RedisError::Kind::Connect,
                      QStringLiteral("%1 is %2, not the master: Reclaim neither reads from nor "
                                     "writes to a replica")
                          .arg(conn.endpointName(), what)};
}

Expected<RedisConnection, RedisError> openMaster(const RedisEndpoint &endpoint,
                                                 std::chrono::milliseconds timeout)
{
    if (!endpoint.sentinel) {
        // A plain URL may name a replica: an old master after a failover, or a replica with
        // `replica-read-only no`, which would take the writes and lose them at the next sync.
        auto conn = RedisConnection::open(endpoint, timeout);
        if (!conn)
            return conn;
        if (auto wrong = notMaster(*conn))
            return unexpected(RedisError{
                wrong->kind,
                wrong->message + (wrong->message.contains(QLatin1String("is a replica"))
                                      ? QStringLiteral(" (point the URL at the master, or use "
                                                       "redis+sentinel:// where failovers happen)")
                                      : QString())});
        return conn;
    }
    // Each sentinel in turn: one that lags behind a failover may still name the old master, now
    // a replica, and the next one may already know the new one.
    QStringList said;
    for (const SentinelSpec::Node &node : endpoint.sentinel->sentinels) {
        auto found = askOne(endpoint, node, timeout);
        if (!found) {
            said << found.error();
            continue;
        }
        RedisEndpoint master = endpoint;
        master.sentinel.reset();
        master.host = found->host;
        master.port = found->port;
        auto conn = RedisConnection::open(master, timeout);
        if (!conn) {
            said << QStringLiteral("%1 named %2: %3")
                        .arg(nodeName(node), nodeName(*found), conn.error().message);
            continue;
        }
        if (auto wrong = notMaster(*conn)) {
            said << QStringLiteral("%1 named %2: %3")
                        .arg(nodeName(node), nodeName(*found), wrong->message);
            continue;
        }
        return std::move(*conn);
    }
    return unexpected(
        RedisError{RedisError::Kind::Connect,
                   QStringLiteral("no sentinel of %1 led to the master: %2")
                       .arg(endpoint.sentinel->describe(), said.join(QStringLiteral("; ")))});
}

} // namespace reclaim
