#include "recovery/planner.h"

#include <optional>

namespace reclaim {

namespace {

Action baseAction(const DomainConfig &domain, const CandidateVerdict &v, qint64 generation)
{
    Action a;
    a.id = domain.name + QLatin1Char('/') + v.candidate.id;
    a.domain = domain.name;
    a.rowId = v.candidate.id;
    a.jobType = v.candidate.type;
    a.precondition = Precondition{v.candidate.status, v.candidate.updatedAtText, generation};
    return a;
}

QString absentReason(const DomainConfig &domain, const CandidateVerdict &v)
{
    QString reason = QStringLiteral("recovered by Reclaim: %1 since %2, but %3")
                         .arg(v.candidate.status, v.candidate.updatedAtText, v.summary());
    if (!domain.restoreFor(v.candidate.type))
        reason += QStringLiteral("; its input cannot be rebuilt");
    return reason;
}

// The operator's recorded "no" stands while the row is as it was: nothing runs, nothing is
// offered, and the action says who said it and when.
void markRejected(Action &a, const Rejection &r)
{
    a.result = ActionResult::Rejected;
    a.rejectedBy = r.by;
    a.executedAt = r.at;
    a.resultDetail =
        QStringLiteral("rejected by %1 at %2; not offered again while the row stays %3, updatedAt "
                       "%4 (undo the rejection to offer it again)")
            .arg(r.by, r.at.toString(Qt::ISODate), r.status, r.updatedAtText);
}

} // namespace

QList<Action> planActions(const DomainConfig &domain, const QList<CandidateVerdict> &verdicts,
                          JobStore &store, qint64 generation)
{
    QList<Action> actions;
    // Read once per domain, and only when there is something to plan.
    std::optional<Expected<QList<Rejection>, StoreError>> rejections;
    for (const CandidateVerdict &v : verdicts) {
        if (v.verdict != Verdict::Absent)
            continue;
        if (!rejections)
            rejections = store.activeRejections(domain);
        Action a = baseAction(domain, v, generation);
        a.kind = ActionKind::Fail;
        a.reason = absentReason(domain, v);
        if (const RestoreRule *rule = domain.restoreFor(v.candidate.type)) {
            auto used = store.recentRequeues(domain, v.candidate.id);
            auto payload = store.restorePayload(domain, *rule, v.candidate.id);
            if (!used || !payload) {
                // Cannot tell whether requeueing is allowed or what to enqueue: write nothing.
                a.kind = ActionKind::Requeue;
                a.result = ActionResult::Error;
                a.resultDetail = !used ? used.error().message : payload.error().message;
            } else if (*used >= domain.maxRequeues) {
                a.reason =
                    QStringLiteral("requeued %1 times within %2 s already (budget %3): failing "
                                   "instead of requeueing again")
                        .arg(*used)
                        .arg(domain.requeueWindow.count())
                        .arg(domain.maxRequeues);
            } else if (!payload->has_value()) {
                a.reason = QStringLiteral(
                    "orphaned, and the restore query found no input to rebuild it from");
            } else {
                a.kind = ActionKind::Requeue;
                a.reason = QStringLiteral("orphaned; input rebuilt from the database");
                a.queue = rule->queue;
                a.jobName = rule->jobName;
                a.jobId = domain.currentJobId(v.candidate.id, v.candidate.type);
                a.payload = **payload;
            }
        }
        if (!*rejections) {
            // Cannot tell whether an operator said no to it: write nothing.
            a.result = ActionResult::Error;
            a.resultDetail = rejections->error().message;
        } else {
            for (const Rejection &r : **rejections)
                if (r.covers(v.candidate))
                    markRejected(a, r);
        }
        actions << a;
    }
    return actions;
}

} // namespace reclaim
