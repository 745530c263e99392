// The daemon's Prometheus metrics: fed with finished runs, rendered as the text exposition
// format. Plain data, no HTTP, so it is tested on its own.
#pragma once

#include "domain/runreport.h"

#include <QByteArray>
#include <QMap>
#include <QPair>
#include <QString>
#include <array>

namespace reclaim {

class MetricsRegistry final
{
public:
    // Upper bounds (seconds) of the run duration histogram's buckets; +Inf is implied.
    static constexpr std::array<double, 11> kDurationBuckets{0.05, 0.1, 0.25, 0.5, 1,  2.5,
                                                             5,    10,  30,   60,  300};

    MetricsRegistry();

    // While a run holds the recovery lock (reclaim_lock_held).
    void setLockHeld(bool held);
    void recordRun(const RunReport &report);
    void recordConfigReload(bool applied);

    QByteArray exposition() const;

private:
    QMap<QString, quint64> m_runs;                    // outcome → count
    QMap<QPair<QString, QString>, int> m_candidates;  // (domain, verdict) → count in the last run
    QMap<QPair<QString, QString>, quint64> m_actions; // (kind, result) → count
    QMap<QString, quint64> m_domainReadErrors;        // domain → runs that could not read it
    QMap<QString, quint64> m_reloads;                 // applied | refused → count
    bool m_lockHeld = false;
    qint64 m_lastSuccessSeconds = 0;
    std::array<quint64, kDurationBuckets.size()> m_durationBuckets{}; // non-cumulative counts
    quint64 m_durationCount = 0;
    double m_durationSum = 0;
    quint64 m_redisRoundTrips = 0;
};

} // namespace reclaim
