#include "recovery/planner.h"

#include "domain/jsontext.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <algorithm>
#include <optional>
#include <utility>

namespace reclaim {

namespace {

// Why a rebuilt payload cannot be a BullMQ job's data, or an empty string when it can. Workers
// read `job.data` as an object; a payload that is not one would be enqueued only to fail there.
QString payloadProblem(const QByteArray &payload)
{
    if (isJsonObjectText(payload))
        return {}; // the common case, checked without building the document
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(payload, &error);
    if (error.error != QJsonParseError::NoError)
        return QStringLiteral("is not valid JSON (%1 at offset %2)")
            .arg(error.errorString())
            .arg(error.offset);
    if (!doc.isObject())
        return QStringLiteral("is JSON but not an object");
    return {};
}

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

// The id the lookups used, shared with their sightings rather than built again per action.
QString jobIdOf(const DomainConfig &domain, const CandidateVerdict &v)
{
    const QString id = domain.currentJobId(v.candidate.id, v.candidate.type);
    for (const Sighting &s : v.evidence)
        if (s.jobId == id)
            return s.jobId;
    return id;
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

// domains[].policy for the action's kind: approve holds it for an operator, observe only
// reports it. Only a pending action is held: one already settled (rejected, unplannable) is not
// waiting for anybody.
void applyPolicy(const DomainConfig &domain, Action &a)
{
    a.policy = domain.policyFor(a.kind);
    if (a.policy != Policy::Approve || a.result != ActionResult::Pending)
        return;
    a.heldReason = QStringLiteral("%1 actions of %2 wait for an operator's approval (policy %1: "
                                  "approve)")
                       .arg(actionKindName(a.kind).toLower(), domain.name);
    a.resultDetail = QStringLiteral("held: %1").arg(a.heldReason);
}

// Ids per statement when planning in sets: large enough that the round trips stop mattering
// (two statements per 5,000 orphans, against six per 1,000 for executing them), small enough
// that one statement's parameter and answer stay a megabyte or two.
constexpr qsizetype kPlanBatch = 5000;

// What planning reads for a domain's restorable orphans, read in sets before any action is
// planned: a batch of ids per statement, not two statements per orphan one after the other.
struct PlanReads
{
    std::optional<StoreError> budgetError; // the budget could not be read: no requeue planned
    QHash<QString, int> used;
    QHash<QString, RestoredInput> restored;
};

PlanReads readInSets(const DomainConfig &domain, const QList<CandidateVerdict> &verdicts,
                     JobStore &store)
{
    PlanReads reads;
    // The ids per restore rule (a domain's types may each have their own query).
    QHash<const RestoreRule *, QStringList> byRule;
    QStringList all;
    for (const CandidateVerdict &v : verdicts)
        if (v.verdict == Verdict::Absent)
            if (const RestoreRule *rule = domain.restoreFor(v.candidate.type)) {
                byRule[rule] << v.candidate.id;
                all << v.candidate.id;
            }
    for (qsizetype at = 0; at < all.size() && !reads.budgetError; at += kPlanBatch) {
        auto used = store.recentRequeuesOf(domain, all.mid(at, kPlanBatch));
        if (!used)
            reads.budgetError = used.error();
        else
            reads.used.insert(*used);
    }
    reads.restored.reserve(all.size());
    for (auto it = byRule.cbegin(); it != byRule.cend(); ++it)
        for (qsizetype at = 0; at < it.value().size(); at += kPlanBatch)
            reads.restored.insert(
                store.restorePayloadsOf(domain, *it.key(), it.value().mid(at, kPlanBatch)));
    return reads;
}

} // namespace

QList<Action> planActions(const DomainConfig &domain, const QList<CandidateVerdict> &verdicts,
                          JobStore &store, qint64 generation)
{
    QList<Action> actions;
    // Read once per domain, and only when there is something to plan.
    std::optional<Expected<QList<Rejection>, StoreError>> rejections;
    const PlanReads reads = readInSets(domain, verdicts, store);
    actions.reserve(
        std::count_if(verdicts.cbegin(), verdicts.cend(),
                      [](const CandidateVerdict &v) { return v.verdict == Verdict::Absent; }));
    for (const CandidateVerdict &v : verdicts) {
        if (v.verdict != Verdict::Absent)
            continue;
        if (!rejections)
            rejections = store.activeRejections(domain);
        Action a = baseAction(domain, v, generation);
        a.kind = ActionKind::Fail;
        a.reason = absentReason(domain, v);
        if (const RestoreRule *rule = domain.restoreFor(v.candidate.type)) {
            const int used = reads.used.value(v.candidate.id, 0);
            const RestoredInput restored = reads.restored.value(
                v.candidate.id,
                RestoredInput{std::nullopt,
                              StoreError{QStringLiteral("its restore query was not run")}});
            const std::optional<QByteArray> *payload = &restored.payload;
            if (reads.budgetError || restored.error) {
                // Cannot tell whether requeueing is allowed or what to enqueue: write nothing.
                a.kind = ActionKind::Requeue;
                a.result = ActionResult::Error;
                a.resultDetail =
                    reads.budgetError ? reads.budgetError->message : restored.error->message;
            } else if (used >= domain.maxRequeues) {
                a.reason =
                    QStringLiteral("requeued %1 times within %2 s already (budget %3): failing "
                                   "instead of requeueing again")
                        .arg(used)
                        .arg(domain.requeueWindow.count())
                        .arg(domain.maxRequeues);
            } else if (!payload->has_value()) {
                a.reason = QStringLiteral(
                    "orphaned, and the restore query found no input to rebuild it from");
            } else if (const QString problem = payloadProblem(**payload); !problem.isEmpty()) {
                // Skipped, not failed: a payload that does not parse says the restore query (the
                // operator's SQL) is wrong, not that the job is lost, and failing on it would
                // fail every row the query touches. Nothing is enqueued or written; the reason
                // is in the report, the log and the console, and the next run looks again.
                a.kind = ActionKind::Requeue;
                a.result = ActionResult::Error;
                a.queue = rule->queue;
                a.jobName = rule->jobName;
                a.jobId = jobIdOf(domain, v);
                a.reason = QStringLiteral("orphaned, but its rebuilt input cannot be enqueued");
                a.resultDetail =
                    QStringLiteral("not enqueued: the restore query of %1 returned a payload "
                                   "for %2 that %3; nothing written, looked at again next run")
                        .arg(domain.name, v.candidate.id, problem);
            } else {
                a.kind = ActionKind::Requeue;
                a.reason = QStringLiteral("orphaned; input rebuilt from the database");
                a.queue = rule->queue;
                a.jobName = rule->jobName;
                a.jobId = jobIdOf(domain, v);
                a.payload = **payload;
                a.jobOptions = domain.jobOptions;
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
        applyPolicy(domain, a);
        actions << std::move(a);
    }
    return actions;
}

} // namespace reclaim
