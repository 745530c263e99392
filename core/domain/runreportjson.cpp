// A run's report as JSON (--once --json, and toJson() for the tests): one writer,
// streamed a candidate and an action at a time, so a report of 100,000 candidates is written in
// a fraction of a second and never exists whole in memory as JSON values.
#include "domain/jsonwriter.h"
#include "domain/runreport.h"

#include <QIODevice>
#include <QJsonDocument>

namespace reclaim {

namespace {

using namespace Qt::Literals::StringLiterals;

// A job's data or a payload: the JSON it holds, a string when it is not an object or an array,
// null when there is none.
void writePayload(JsonWriter &w, const QByteArray &bytes)
{
    if (bytes.isEmpty())
        w.null();
    else
        w.document(bytes);
}

void writeSighting(JsonWriter &w, const Sighting &s)
{
    w.beginObject();
    w.member("queue"_L1, s.queue).member("jobId"_L1, s.jobId);
    w.member("how"_L1, s.how == FoundBy::Direct ? "direct"_L1 : "scan"_L1);
    if (s.error) {
        w.member("error"_L1, *s.error);
        w.endObject();
        return;
    }
    w.member("state"_L1, s.state).member("runnable"_L1, s.runnable());
    if (s.lockTtlMs != -2)
        w.member("lockTtlMs"_L1, s.lockTtlMs);
    if (!s.name.isEmpty())
        w.member("name"_L1, s.name);
    if (!s.attempts.isEmpty())
        w.member("attempts"_L1, s.attempts);
    if (!s.failedReason.isEmpty())
        w.member("failedReason"_L1, s.failedReason);
    if (s.timestamp)
        w.member("timestamp"_L1, s.timestamp);
    if (s.processedOn)
        w.member("processedOn"_L1, s.processedOn);
    if (s.finishedOn)
        w.member("finishedOn"_L1, s.finishedOn);
    if (!s.data.isEmpty()) {
        w.key("data"_L1);
        writePayload(w, s.data);
    }
    w.endObject();
}

void writeCandidate(JsonWriter &w, const CandidateVerdict &c)
{
    w.beginObject();
    w.member("id"_L1, c.candidate.id)
        .member("type"_L1, c.candidate.type)
        .member("status"_L1, c.candidate.status)
        .member("updatedAt"_L1, c.candidate.updatedAtText)
        .member("verdict"_L1, verdictName(c.verdict))
        .member("summary"_L1, c.summary())
        .member("scanned"_L1, c.scanned);
    w.key("evidence"_L1).beginArray();
    for (const Sighting &s : c.evidence)
        writeSighting(w, s);
    w.endArray();
    if (c.verdict == Verdict::Unknown)
        w.member("unknownReason"_L1, c.unknownReason);
    w.endObject();
}

void writeAction(JsonWriter &w, const Action &a)
{
    w.beginObject();
    w.member("id"_L1, a.id)
        .member("domain"_L1, a.domain)
        .member("rowId"_L1, a.rowId)
        .member("type"_L1, a.jobType)
        .member("kind"_L1, actionKindName(a.kind))
        .member("reason"_L1, a.reason);
    w.key("precondition"_L1).beginObject();
    w.member("status"_L1, a.precondition.status)
        .member("updatedAt"_L1, a.precondition.updatedAtText)
        .member("generation"_L1, a.precondition.generation);
    w.endObject();
    w.member("result"_L1, actionResultName(a.result)).member("policy"_L1, policyName(a.policy));
    if (!a.resultDetail.isEmpty())
        w.member("resultDetail"_L1, a.resultDetail);
    if (!a.heldReason.isEmpty())
        w.member("held"_L1, a.heldReason);
    if (a.heldId != 0)
        w.member("heldId"_L1, a.heldId);
    if (a.executedAt.isValid())
        w.member("executedAt"_L1, a.executedAt);
    if (!a.rejectedBy.isEmpty())
        w.member("rejectedBy"_L1, a.rejectedBy);
    if (a.kind == ActionKind::Requeue) {
        w.member("queue"_L1, a.queue).member("jobId"_L1, a.jobId).member("jobName"_L1, a.jobName);
        w.key("payload"_L1);
        writePayload(w, a.payload);
        if (!a.jobOptions.isEmpty()) {
            // Checked as an object when the configuration was loaded.
            w.key("jobOptions"_L1).document(a.jobOptions);
        }
    }
    if (a.parent.attempted) {
        w.key("parent"_L1).beginObject();
        w.member("table"_L1, a.parent.table)
            .member("column"_L1, a.parent.column)
            .member("id"_L1, a.parent.parentId)
            .member("newValue"_L1, a.parent.newValue)
            .member("rows"_L1, a.parent.rows);
        w.endObject();
    }
    w.endObject();
}

void writeCounts(JsonWriter &w, int scheduled, int absent, int unknown)
{
    w.beginObject();
    w.member("SCHEDULED"_L1, scheduled).member("ABSENT"_L1, absent).member("UNKNOWN"_L1, unknown);
    w.endObject();
}

void writeStrings(JsonWriter &w, const QStringList &list)
{
    w.beginArray();
    for (const QString &s : list)
        w.value(s);
    w.endArray();
}

void writeScan(JsonWriter &w, const ScanStats &scan)
{
    w.beginObject();
    w.member("ran"_L1, scan.ran)
        .member("pages"_L1, scan.pages)
        .member("jobsRead"_L1, scan.jobsRead)
        .member("malformed"_L1, scan.malformed);
    w.key("unreadable"_L1);
    writeStrings(w, scan.unreadable);
    w.member("restarts"_L1, scan.restarts)
        .member("rereads"_L1, scan.rereads)
        .member("queueRereads"_L1, scan.queueRereads)
        .member("reprioritized"_L1, scan.reprioritized)
        .member("rechecked"_L1, scan.rechecked)
        .member("movedLookedUp"_L1, scan.movedLookedUp);
    if (scan.error)
        w.member("error"_L1, *scan.error);
    w.endObject();
}

void writeDomain(JsonWriter &w, const DomainReport &d)
{
    w.beginObject();
    w.member("name"_L1, d.name);
    w.key("counts"_L1);
    writeCounts(w, d.count(Verdict::Scheduled), d.count(Verdict::Absent),
                d.count(Verdict::Unknown));
    // SCHEDULED candidates counted above but not in "candidates" (run.scheduledListed).
    w.member("scheduledUnlisted"_L1, static_cast<qint64>(d.unlistedScheduled.size()));
    if (d.candidateError)
        w.member("candidateError"_L1, *d.candidateError);
    w.key("scan"_L1);
    writeScan(w, d.scan);
    if (!d.heldReason.isEmpty())
        w.member("held"_L1, d.heldReason).member("heldLimit"_L1, d.heldLimit);
    w.key("candidates"_L1).beginArray();
    for (const CandidateVerdict &c : d.candidates) {
        w.breakLine();
        writeCandidate(w, c);
    }
    w.endArray();
    w.endObject();
}

void writeLock(JsonWriter &w, const LockReport &lock)
{
    w.beginObject();
    w.member("state"_L1, LockReport::stateName(lock.state))
        .member("token"_L1, lock.token)
        .member("ttlMs"_L1, lock.ttlMs)
        .member("generation"_L1, lock.generation)
        .member("released"_L1, lock.released)
        .member("lost"_L1, lock.lost);
    if (!lock.error.isEmpty())
        w.member("error"_L1, lock.error);
    if (lock.raisedFrom)
        w.member("raisedFrom"_L1, lock.raisedFrom);
    w.endObject();
}

void writePhases(JsonWriter &w, const PhaseTimes &p)
{
    w.beginObject();
    w.member("lock"_L1, p.lockMs)
        .member("candidates"_L1, p.candidatesMs)
        .member("lookup"_L1, p.lookupMs)
        .member("scan"_L1, p.scanMs)
        .member("plan"_L1, p.planMs)
        .member("execute"_L1, p.executeMs);
    w.endObject();
}

void writeHeldOpen(JsonWriter &w, const QList<HeldGroup> &groups)
{
    w.beginArray();
    for (const HeldGroup &g : groups) {
        w.beginObject();
        w.member("domain"_L1, g.domain)
            .member("kind"_L1, actionKindName(g.kind))
            .member("limit"_L1, g.limit)
            .member("count"_L1, g.count)
            .member("oldestHeldAt"_L1, g.oldest);
        w.endObject();
    }
    w.endArray();
}

void writeReport(JsonWriter &w, const RunReport &r)
{
    w.beginObject();
    w.breakLine();
    w.member("runId"_L1, r.runId);
    w.breakLine();
    w.member("trigger"_L1, r.trigger);
    w.breakLine();
    w.member("dryRun"_L1, r.dryRun);
    w.breakLine();
    w.member("outcome"_L1, RunReport::outcomeName(r.outcome));
    w.breakLine();
    w.member("outcomeDetail"_L1, r.outcomeDetail);
    w.breakLine();
    w.member("startedAt"_L1, r.startedAt);
    w.breakLine();
    w.member("finishedAt"_L1, r.finishedAt);
    w.breakLine();
    w.key("lock"_L1);
    writeLock(w, r.lock);
    w.breakLine();
    w.key("counts"_L1);
    writeCounts(w, r.count(Verdict::Scheduled), r.count(Verdict::Absent),
                r.count(Verdict::Unknown));
    w.breakLine();
    w.key("phasesMs"_L1);
    writePhases(w, r.phases);
    w.breakLine();
    w.member("redisRoundTrips"_L1, r.redisRoundTrips);
    w.breakLine();
    w.key("unreadDomains"_L1);
    writeStrings(w, r.unreadDomains());
    if (r.heldOpen) {
        w.breakLine();
        w.key("heldOpen"_L1);
        writeHeldOpen(w, *r.heldOpen);
    }
    if (!r.auditUnfinished.isEmpty()) {
        w.breakLine();
        w.key("auditUnfinished"_L1);
        writeStrings(w, r.auditUnfinished);
    }
    if (!r.heldStoreErrors.isEmpty()) {
        w.breakLine();
        w.key("heldStoreErrors"_L1);
        writeStrings(w, r.heldStoreErrors);
    }
    w.breakLine();
    w.key("domains"_L1).beginArray();
    for (const DomainReport &d : r.domains) {
        w.breakLine();
        writeDomain(w, d);
    }
    w.endArray();
    w.breakLine();
    w.key("actions"_L1).beginArray();
    for (const Action &a : r.actions) {
        w.breakLine();
        writeAction(w, a);
    }
    w.endArray();
    w.endObject();
}

} // namespace

void RunReport::writeJson(QIODevice &out) const
{
    JsonWriter w(&out);
    writeReport(w, *this);
    w.flush();
    out.write("\n");
}

QJsonObject RunReport::toJson() const
{
    JsonWriter w;
    writeReport(w, *this);
    return QJsonDocument::fromJson(w.data()).object();
}

} // namespace reclaim
