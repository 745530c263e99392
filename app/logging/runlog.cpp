#include "logging/runlog.h"

#include <QJsonArray>
#include <QJsonObject>

namespace reclaim {

namespace {

constexpr ActionResult kAllResults[] = {ActionResult::Pending,       ActionResult::Applied,
                                        ActionResult::Stale,         ActionResult::Fenced,
                                        ActionResult::EnqueueFailed, ActionResult::Dropped,
                                        ActionResult::Rejected,      ActionResult::LockLost,
                                        ActionResult::Unknown,       ActionResult::Error};

LogLevel levelFor(RunReport::Outcome outcome)
{
    switch (outcome) {
    case RunReport::Outcome::Completed:
    case RunReport::Outcome::SkippedLockHeld:
        return LogLevel::Info;
    case RunReport::Outcome::SkippedUnreachable:
        return LogLevel::Warn;
    case RunReport::Outcome::Failed:
        return LogLevel::Error;
    }
    return LogLevel::Error;
}

LogLevel levelFor(ActionResult result)
{
    switch (result) {
    case ActionResult::Pending:
    case ActionResult::Applied:
    case ActionResult::Stale:
    case ActionResult::Dropped:
    case ActionResult::Rejected:
        return LogLevel::Info;
    case ActionResult::Fenced:
    case ActionResult::EnqueueFailed:
    case ActionResult::LockLost:
    case ActionResult::Unknown:
    case ActionResult::Error:
        return LogLevel::Warn;
    }
    return LogLevel::Warn;
}

QString summaryMessage(const RunReport &r)
{
    const QString head =
        QStringLiteral("run %1 %2").arg(r.runId, RunReport::outcomeName(r.outcome));
    switch (r.outcome) {
    case RunReport::Outcome::Completed:
        return head +
               QStringLiteral(": %1 candidates, %2 absent, %3 unknown; %4 actions, %5 applied")
                   .arg(r.count(Verdict::Scheduled) + r.count(Verdict::Absent) +
                        r.count(Verdict::Unknown))
                   .arg(r.count(Verdict::Absent))
                   .arg(r.count(Verdict::Unknown))
                   .arg(r.actions.size())
                   .arg(r.count(ActionResult::Applied));
    case RunReport::Outcome::SkippedLockHeld:
        return head + QStringLiteral(": the lock is held by %1; waiting for the next interval")
                          .arg(r.lock.token);
    case RunReport::Outcome::SkippedUnreachable:
    case RunReport::Outcome::Failed:
        return head; // the why is in "detail"
    }
    return head;
}

} // namespace

LogRecord describeAction(const QString &runId, const Action &a)
{
    LogRecord rec;
    rec.level = levelFor(a.result);
    rec.message =
        QStringLiteral("action %1 %2/%3: %4")
            .arg(actionKindName(a.kind).toLower(), a.domain, a.rowId, actionResultName(a.result));
    rec.fields = {{QStringLiteral("event"), QStringLiteral("action")},
                  {QStringLiteral("runId"), runId},
                  {QStringLiteral("domain"), a.domain},
                  {QStringLiteral("jobId"), a.rowId},
                  {QStringLiteral("type"), a.jobType},
                  {QStringLiteral("action"), actionKindName(a.kind).toLower()},
                  {QStringLiteral("result"), actionResultName(a.result)}};
    if (a.kind == ActionKind::Requeue) {
        rec.fields.append({QStringLiteral("queue"), a.queue});
        rec.fields.append({QStringLiteral("bullmqId"), a.jobId});
    }
    if (!a.resultDetail.isEmpty())
        rec.fields.append({QStringLiteral("detail"), a.resultDetail});
    if (a.parent.attempted)
        rec.fields.append(
            {QStringLiteral("parent"), QJsonObject{{QStringLiteral("table"), a.parent.table},
                                                   {QStringLiteral("id"), a.parent.parentId},
                                                   {QStringLiteral("column"), a.parent.column},
                                                   {QStringLiteral("value"), a.parent.newValue},
                                                   {QStringLiteral("rows"), a.parent.rows}}});
    return rec;
}

QList<LogRecord> describeRun(const RunReport &r, bool executeActions)
{
    QList<LogRecord> out;
    for (const DomainReport &d : r.domains) {
        if (d.candidateError)
            out.append(
                {LogLevel::Warn,
                 QStringLiteral("run %1: could not read the candidates of %2").arg(r.runId, d.name),
                 {{QStringLiteral("event"), QStringLiteral("domain-error")},
                  {QStringLiteral("runId"), r.runId},
                  {QStringLiteral("domain"), d.name},
                  {QStringLiteral("detail"), *d.candidateError}}});
        if (!d.heldReason.isEmpty())
            out.append({LogLevel::Warn,
                        QStringLiteral("run %1: nothing of %2 executes: %3")
                            .arg(r.runId, d.name, d.heldReason),
                        {{QStringLiteral("event"), QStringLiteral("guard-held")},
                         {QStringLiteral("runId"), r.runId},
                         {QStringLiteral("domain"), d.name},
                         {QStringLiteral("limit"), d.heldLimit},
                         {QStringLiteral("detail"), d.heldReason}}});
        if (d.scan.error)
            out.append(
                {LogLevel::Warn,
                 QStringLiteral(
                     "run %1: the scan of %2 did not finish; its unresolved candidates are UNKNOWN")
                     .arg(r.runId, d.name),
                 {{QStringLiteral("event"), QStringLiteral("domain-error")},
                  {QStringLiteral("runId"), r.runId},
                  {QStringLiteral("domain"), d.name},
                  {QStringLiteral("detail"), *d.scan.error}}});
    }
    for (const QString &left : r.auditUnfinished)
        out.append(LogRecord{LogLevel::Warn,
                             QStringLiteral("run %1: %2").arg(r.runId, left),
                             {{QStringLiteral("event"), QStringLiteral("audit-unfinished")},
                              {QStringLiteral("runId"), r.runId},
                              {QStringLiteral("detail"), left}}});
    for (const QString &error : r.heldStoreErrors)
        out.append(LogRecord{LogLevel::Warn,
                             QStringLiteral("run %1: held actions could not be kept for the "
                                            "operators (still held in this run; the next run "
                                            "holds them again): %2")
                                 .arg(r.runId, error),
                             {{QStringLiteral("event"), QStringLiteral("held-store-error")},
                              {QStringLiteral("runId"), r.runId},
                              {QStringLiteral("detail"), error}}});
    if (r.lock.raisedFrom)
        out.append(LogRecord{
            LogLevel::Warn,
            QStringLiteral("run %1: the Redis generation counter stood at %2, not above "
                           "PostgreSQL's fence (%3): Redis was flushed or replaced; raised to %4")
                .arg(r.runId)
                .arg(r.lock.raisedFrom)
                .arg(r.lock.generation - 1)
                .arg(r.lock.generation),
            {{QStringLiteral("event"), QStringLiteral("generation-raised")},
             {QStringLiteral("runId"), r.runId},
             {QStringLiteral("from"), r.lock.raisedFrom},
             {QStringLiteral("to"), r.lock.generation}}});
    for (const Action &a : r.actions)
        out.append(describeAction(r.runId, a));

    QJsonObject actions{{QStringLiteral("planned"), static_cast<int>(r.actions.size())}};
    for (ActionResult result : kAllResults)
        if (const int n = r.count(result))
            actions.insert(actionResultName(result), n);
    LogRecord summary;
    const QStringList unread = r.unreadDomains();
    summary.level = unread.isEmpty() ? levelFor(r.outcome) : LogLevel::Warn;
    summary.message = summaryMessage(r);
    if (!unread.isEmpty())
        summary.message +=
            QStringLiteral("; candidates not read for %1").arg(unread.join(QStringLiteral(", ")));
    summary.fields = {{QStringLiteral("event"), QStringLiteral("run")},
                      {QStringLiteral("runId"), r.runId},
                      {QStringLiteral("trigger"), r.trigger},
                      {QStringLiteral("outcome"), RunReport::outcomeName(r.outcome)},
                      {QStringLiteral("dryRun"), r.dryRun},
                      {QStringLiteral("execute"), executeActions && !r.dryRun},
                      {QStringLiteral("verdicts"),
                       QJsonObject{{QStringLiteral("scheduled"), r.count(Verdict::Scheduled)},
                                   {QStringLiteral("absent"), r.count(Verdict::Absent)},
                                   {QStringLiteral("unknown"), r.count(Verdict::Unknown)}}},
                      {QStringLiteral("actions"), actions},
                      {QStringLiteral("unreadDomains"), QJsonArray::fromStringList(unread)},
                      {QStringLiteral("durationMs"), r.startedAt.msecsTo(r.finishedAt)},
                      {QStringLiteral("redisRoundTrips"), r.redisRoundTrips},
                      {QStringLiteral("lock"), LockReport::stateName(r.lock.state)}};
    if (r.outcome == RunReport::Outcome::SkippedLockHeld)
        summary.fields.append({QStringLiteral("holder"), r.lock.token});
    if (r.lock.generation)
        summary.fields.append({QStringLiteral("generation"), r.lock.generation});
    if (r.lock.state == LockReport::State::Acquired)
        summary.fields.append({QStringLiteral("released"), r.lock.released});
    if (r.lock.lost)
        summary.fields.append({QStringLiteral("lockLost"), true});
    if (!r.outcomeDetail.isEmpty())
        summary.fields.append({QStringLiteral("detail"), r.outcomeDetail});
    out.append(summary);
    return out;
}

} // namespace reclaim
