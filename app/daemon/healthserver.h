// The daemon's HTTP endpoints: /metrics (Prometheus text), /healthz (alive) and /readyz
// (recent run and valid configuration), served by Qt HttpServer on the main thread.
#pragma once

#include "daemon/readiness.h"

#include <QHostAddress>
#include <QHttpServer>
#include <QObject>
#include <functional>
#include <optional>

namespace reclaim {

class HealthServer final : public QObject
{
    Q_OBJECT
public:
    using MetricsSource = std::function<QByteArray()>;
    using ReadinessSource = std::function<Readiness()>;

    HealthServer(MetricsSource metrics, ReadinessSource readiness, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(HealthServer)

    // The port now listened on, or why not (for example "address in use").
    std::optional<quint16> listen(const QHostAddress &address, quint16 port, QString *error);

private:
    QHttpServer m_server;
    MetricsSource m_metrics;
    ReadinessSource m_readiness;
};

} // namespace reclaim
