#include "runproblems.h"

#include "banner.h"
#include "config/connectionurl.h"
#include "domain/locktoken.h"

namespace reclaim::ui {

namespace {
QString hhmmss(const QDateTime &t)
{
    return t.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}
} // namespace

void showRunProblems(Banner &banner, const RunReport &report,
                     const std::optional<QDateTime> &lastCompletedAt)
{
    const QString at = hhmmss(report.startedAt);
    const QString since =
        lastCompletedAt
            ? QStringLiteral(" The tables still show the run at %1.").arg(hhmmss(*lastCompletedAt))
            : QString();
    const QString detail = redactSecrets(report.outcomeDetail);
    const QString run = QStringLiteral("run");
    switch (report.outcome) {
    case RunReport::Outcome::Completed:
        banner.clearMessage(run);
        break;
    case RunReport::Outcome::SkippedLockHeld: {
        const LockHolder h = parseLockToken(report.lock.token);
        banner.setMessage(
            run, Banner::Severity::Warning,
            QStringLiteral("The run at %1 was skipped: another runner holds the lock (%2).%3")
                .arg(at,
                     h.parsed ? QStringLiteral("%1, pid %2").arg(h.host).arg(h.pid)
                              : report.lock.token,
                     since));
        break;
    }
    case RunReport::Outcome::SkippedUnreachable:
        banner.setMessage(
            run, Banner::Severity::Error,
            QStringLiteral("The run at %1 could not start: Redis is unreachable (%2). Nothing was "
                           "looked at or changed.%3")
                .arg(at, redactSecrets(report.lock.error), since),
            true);
        break;
    case RunReport::Outcome::Failed:
        banner.setMessage(
            run, Banner::Severity::Error,
            QStringLiteral("The run at %1 could not proceed: %2. Nothing was changed.%3")
                .arg(at, detail, since),
            true);
        break;
    }

    QStringList unreadable, unscanned;
    for (const DomainReport &d : report.domains) {
        if (d.candidateError)
            unreadable << QStringLiteral("%1 (%2)").arg(d.name, redactSecrets(*d.candidateError));
        if (d.scan.error)
            unscanned << QStringLiteral("%1 (%2)").arg(d.name, redactSecrets(*d.scan.error));
    }
    banner.setMessage(QStringLiteral("domains"), Banner::Severity::Warning,
                      unreadable.isEmpty()
                          ? QString()
                          : QStringLiteral("Could not read the job rows of %1: their counts are "
                                           "missing, not zero.")
                                .arg(unreadable.join(QStringLiteral(", "))));
    banner.setMessage(QStringLiteral("scan"), Banner::Severity::Warning,
                      unscanned.isEmpty()
                          ? QString()
                          : QStringLiteral("The queue scan of %1 did not finish: its unresolved "
                                           "candidates are UNKNOWN, not ABSENT.")
                                .arg(unscanned.join(QStringLiteral(", "))));
    banner.setMessage(
        QStringLiteral("lock"), Banner::Severity::Error,
        report.lock.lost
            ? QStringLiteral("The run at %1 lost its lock: %2. It issued no write after that.")
                  .arg(at, detail)
            : QString());
}

} // namespace reclaim::ui
