#include "freshness.h"

#include "candidatetablemodel.h"
#include "config/connectionurl.h"
#include "domain/locktoken.h"

namespace reclaim::ui {

namespace {

QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

QString whyNotCompleted(const RunReport &report)
{
    switch (report.outcome) {
    case RunReport::Outcome::Completed:
        return {};
    case RunReport::Outcome::SkippedUnreachable:
        return QStringLiteral("Redis is unreachable");
    case RunReport::Outcome::SkippedLockHeld: {
        const LockHolder h = parseLockToken(report.lock.token);
        return h.parsed ? QStringLiteral("another runner holds the lock (%1, pid %2)")
                              .arg(h.host)
                              .arg(h.pid)
                        : QStringLiteral("another runner holds the lock");
    }
    case RunReport::Outcome::Failed:
        return report.outcomeDetail.isEmpty()
                   ? QStringLiteral("the run failed")
                   : QStringLiteral("it failed: %1").arg(redactSecrets(report.outcomeDetail));
    }
    return {};
}

} // namespace

QString Freshness::shownAge(const QDateTime &now) const
{
    return CandidateTableModel::formatAge(std::max<qint64>(0, shownRunAt.secsTo(now)));
}

QString Freshness::explanation(const QDateTime &now) const
{
    if (!stale())
        return {};
    return QStringLiteral("Stale: these rows are what the run at %1 saw, %2 ago. The latest run, "
                          "at %3, did not complete: %4.")
        .arg(hhmmss(shownRunAt), shownAge(now), hhmmss(latestRunAt), why);
}

QString Freshness::approvalHold(const QDateTime &now) const
{
    if (!stale())
        return {};
    return QStringLiteral("On hold: the latest run (%1) did not complete (%2), so these rows are "
                          "%3 old. Approving is off until a run completes (F5 to retry).")
        .arg(hhmmss(latestRunAt), why, shownAge(now));
}

Freshness Freshness::after(const Freshness &before, const RunReport &report)
{
    Freshness f;
    if (report.outcome == RunReport::Outcome::Completed) {
        f.shownRunAt = report.startedAt;
        return f;
    }
    f.shownRunAt = before.shownRunAt;
    f.latestRunAt = report.startedAt;
    f.why = whyNotCompleted(report);
    return f;
}

} // namespace reclaim::ui
