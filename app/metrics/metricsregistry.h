// The daemon's Prometheus metrics: fed with finished runs, rendered as the text exposition
// format. Plain data, no HTTP, so it is tested on its own.
#pragma once

#include "domain/runreport.h"

#include <QByteArray>
#include <QMap>
#include <QPair>
#include <QString>
#include <array>
#include <tuple>

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
    // The daemon's interval (reclaim_run_interval_seconds): alerts count missed runs with it.
    void setRunInterval(qint64 seconds);

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
    qint64 m_intervalSeconds = 0;
    // (domain, kind, limit) → actions held now; a group that empties stays, at 0.
    QMap<std::tuple<QString, QString, QString>, int> m_held;
    QMap<QString, qint64> m_heldOldest; // domain → Unix time of its oldest held action, 0: none
    QMap<QPair<QString, QString>, quint64> m_guardTrips; // (domain, limit) → runs it held
};

} // namespace reclaim
