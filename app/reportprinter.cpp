#include "reportprinter.h"

#include "exitcodes.h"

#include <QTextStream>

namespace reclaim {

void printReport(const RunReport &r, QTextStream &s)
{
    s << "Reclaim run " << r.runId << (r.dryRun ? " (dry run)" : "") << ": "
      << RunReport::outcomeName(r.outcome);
    if (!r.outcomeDetail.isEmpty())
        s << " — " << r.outcomeDetail;
    for (const QString &left : r.auditUnfinished)
        s << "\n  audit not completed: " << left;
    s << "\n";
    s << "lock: " << LockReport::stateName(r.lock.state);
    if (r.lock.generation)
        s << ", generation " << r.lock.generation;
    if (!r.lock.token.isEmpty())
        s << ", holder " << r.lock.token;
    s << "\n";
    for (const DomainReport &d : r.domains) {
        s << "\n[" << d.name << "] SCHEDULED " << d.count(Verdict::Scheduled) << ", ABSENT "
          << d.count(Verdict::Absent) << ", UNKNOWN " << d.count(Verdict::Unknown);
        if (d.scan.ran)
            s << "; scanned " << d.scan.jobsRead << " jobs in " << d.scan.pages << " pages"
              << (d.scan.malformed ? QStringLiteral(", %1 malformed skipped").arg(d.scan.malformed)
                                   : QString());
        s << "\n";
        if (d.candidateError)
            s << "  could not read candidates: " << *d.candidateError << "\n";
        for (const CandidateVerdict &c : d.candidates)
            s << "  " << verdictName(c.verdict).leftJustified(9) << " " << c.candidate.id << " "
              << (c.candidate.type.isEmpty() ? QString() : c.candidate.type + QLatin1Char(' '))
              << c.candidate.status << " — " << c.summary() << "\n";
        if (!d.unlistedScheduled.isEmpty())
            s << "  … and " << d.unlistedScheduled.size()
              << " more SCHEDULED (healthy), counted, not listed (run.scheduledListed)\n";
    }
    if (!r.actions.isEmpty()) {
        s << "\nactions:\n";
        for (const Action &a : r.actions) {
            s << "  " << actionKindName(a.kind).leftJustified(7) << " " << a.id << " → "
              << actionResultName(a.result);
            if (!a.resultDetail.isEmpty())
                s << " (" << a.resultDetail << ")";
            if (a.parent.attempted && a.parent.rows > 0)
                s << "; parent " << a.parent.table << "." << a.parent.column << " → "
                  << a.parent.newValue;
            s << "\n";
        }
    }
    s << "\n"
      << r.count(Verdict::Scheduled) << " scheduled, " << r.count(Verdict::Absent) << " absent, "
      << r.count(Verdict::Unknown) << " unknown; " << r.actions.size() << " actions, "
      << r.count(ActionResult::Applied) << " applied; " << r.redisRoundTrips
      << " Redis round trips; " << r.startedAt.msecsTo(r.finishedAt) << " ms\n";
}

int exitCodeFor(const RunReport &r)
{
    switch (r.outcome) {
    case RunReport::Outcome::Completed:
        if (!r.unreadDomains().isEmpty())
            return exitcode::DomainUnread;
        for (const Action &a : r.actions)
            if (a.isHeld())
                return exitcode::Held;
        return exitcode::Ran;
    case RunReport::Outcome::SkippedLockHeld:
        return exitcode::LockHeld;
    case RunReport::Outcome::SkippedUnreachable:
        return exitcode::RedisUnreachable;
    case RunReport::Outcome::Failed:
        return exitcode::RunFailed;
    }
    return exitcode::RunFailed;
}

} // namespace reclaim
