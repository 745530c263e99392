#include "daemon/healthserver.h"

#include <QTcpServer>

namespace reclaim {

namespace {
const QByteArray kTextPlain = QByteArrayLiteral("text/plain; charset=utf-8");
const QByteArray kExposition = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
} // namespace

HealthServer::HealthServer(MetricsSource metrics, ReadinessSource readiness, QObject *parent)
    : QObject(parent), m_metrics(std::move(metrics)), m_readiness(std::move(readiness))
{
    m_server.route(QStringLiteral("/metrics"), QHttpServerRequest::Method::Get,
                   [this] { return QHttpServerResponse(kExposition, m_metrics()); });
    m_server.route(QStringLiteral("/healthz"), QHttpServerRequest::Method::Get,
                   [] { return QHttpServerResponse(kTextPlain, QByteArrayLiteral("ok\n")); });
    m_server.route(QStringLiteral("/readyz"), QHttpServerRequest::Method::Get, [this] {
        const Readiness r = m_readiness();
        return QHttpServerResponse(kTextPlain, r.reason.toUtf8() + '\n',
                                   r.ready ? QHttpServerResponse::StatusCode::Ok
                                           : QHttpServerResponse::StatusCode::ServiceUnavailable);
    });
}

std::optional<quint16> HealthServer::listen(const QHostAddress &address, quint16 port,
                                            QString *error)
{
    // Our own QTcpServer rather than QHttpServer::listen(), so a failure is one line of ours
    // with the reason, not a Qt warning.
    auto *tcp = new QTcpServer(&m_server);
    if (!tcp->listen(address, port)) {
        if (error)
            *error = tcp->errorString();
        delete tcp;
        return std::nullopt;
    }
    m_server.bind(tcp);
    return tcp->serverPort();
}

} // namespace reclaim
