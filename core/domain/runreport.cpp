#include "domain/runreport.h"

#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

namespace reclaim {

QString LockReport::stateName(State s)
{
    switch (s) {
    case State::NotAttempted:
        return QStringLiteral("not-attempted");
    case State::Acquired:
        return QStringLiteral("acquired");
    case State::Held:
        return QStringLiteral("held");
    case State::Unreachable:
        return QStringLiteral("unreachable");
    }
    return {};
}

int DomainReport::count(Verdict v) const
{
    int n = 0;
    for (const CandidateVerdict &c : candidates)
        n += c.verdict == v ? 1 : 0;
    return n + (v == Verdict::Scheduled ? static_cast<int>(unlistedScheduled.size()) : 0);
}

QString RunReport::newRunId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
}

QString RunReport::outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::Completed:
        return QStringLiteral("completed");
    case Outcome::SkippedLockHeld:
        return QStringLiteral("skipped-lock-held");
    case Outcome::SkippedUnreachable:
        return QStringLiteral("skipped-unreachable");
    case Outcome::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

int RunReport::count(Verdict v) const
{
    int n = 0;
    for (const DomainReport &d : domains)
        n += d.count(v);
    return n;
}

int RunReport::count(ActionResult r) const
{
    int n = 0;
    for (const Action &a : actions)
        n += a.result == r ? 1 : 0;
    return n;
}

const CandidateVerdict *RunReport::find(const QString &domain, const QString &rowId) const
{
    for (const DomainReport &d : domains)
        if (d.name == domain)
            for (const CandidateVerdict &c : d.candidates)
                if (c.candidate.id == rowId)
                    return &c;
    return nullptr;
}

namespace {

QJsonValue payloadJson(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return QJsonValue::Null;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (doc.isObject())
        return doc.object();
    if (doc.isArray())
        return doc.array();
    return QString::fromUtf8(bytes);
}

QJsonObject sightingJson(const Sighting &s)
{
    QJsonObject o{{QStringLiteral("queue"), s.queue},
                  {QStringLiteral("jobId"), s.jobId},
                  {QStringLiteral("how"),
                   s.how == FoundBy::Direct ? QStringLiteral("direct") : QStringLiteral("scan")}};
    if (s.error) {
        o.insert(QStringLiteral("error"), *s.error);
        return o;
    }
    o.insert(QStringLiteral("state"), s.state);
    o.insert(QStringLiteral("runnable"), s.runnable());
    if (s.lockTtlMs != -2)
        o.insert(QStringLiteral("lockTtlMs"), s.lockTtlMs);
    if (!s.name.isEmpty())
        o.insert(QStringLiteral("name"), s.name);
    if (!s.attempts.isEmpty())
        o.insert(QStringLiteral("attempts"), s.attempts);
    if (!s.failedReason.isEmpty())
        o.insert(QStringLiteral("failedReason"), s.failedReason);
    if (s.timestamp)
        o.insert(QStringLiteral("timestamp"), s.timestamp);
    if (s.processedOn)
        o.insert(QStringLiteral("processedOn"), s.processedOn);
    if (s.finishedOn)
        o.insert(QStringLiteral("finishedOn"), s.finishedOn);
    if (!s.data.isEmpty())
        o.insert(QStringLiteral("data"), payloadJson(s.data));
    return o;
}

QJsonObject candidateJson(const CandidateVerdict &c)
{
    QJsonArray evidence;
    for (const Sighting &s : c.evidence)
        evidence.append(sightingJson(s));
    QJsonObject o{{QStringLiteral("id"), c.candidate.id},
                  {QStringLiteral("type"), c.candidate.type},
                  {QStringLiteral("status"), c.candidate.status},
                  {QStringLiteral("updatedAt"), c.candidate.updatedAtText},
                  {QStringLiteral("verdict"), verdictName(c.verdict)},
                  {QStringLiteral("summary"), c.summary()},
                  {QStringLiteral("scanned"), c.scanned},
                  {QStringLiteral("evidence"), evidence}};
    if (c.verdict == Verdict::Unknown)
        o.insert(QStringLiteral("unknownReason"), c.unknownReason);
    return o;
}

QJsonObject actionJson(const Action &a)
{
    QJsonObject o{{QStringLiteral("id"), a.id},
                  {QStringLiteral("domain"), a.domain},
                  {QStringLiteral("rowId"), a.rowId},
                  {QStringLiteral("type"), a.jobType},
                  {QStringLiteral("kind"), actionKindName(a.kind)},
                  {QStringLiteral("reason"), a.reason},
                  {QStringLiteral("precondition"),
                   QJsonObject{{QStringLiteral("status"), a.precondition.status},
                               {QStringLiteral("updatedAt"), a.precondition.updatedAtText},
                               {QStringLiteral("generation"), a.precondition.generation}}},
                  {QStringLiteral("result"), actionResultName(a.result)},
                  {QStringLiteral("policy"), policyName(a.policy)}};
    if (!a.resultDetail.isEmpty())
        o.insert(QStringLiteral("resultDetail"), a.resultDetail);
    if (!a.heldReason.isEmpty())
        o.insert(QStringLiteral("held"), a.heldReason);
    if (a.heldId != 0)
        o.insert(QStringLiteral("heldId"), a.heldId);
    if (a.executedAt.isValid())
        o.insert(QStringLiteral("executedAt"), a.executedAt.toString(Qt::ISODateWithMs));
    if (!a.rejectedBy.isEmpty())
        o.insert(QStringLiteral("rejectedBy"), a.rejectedBy);
    if (a.kind == ActionKind::Requeue) {
        o.insert(QStringLiteral("queue"), a.queue);
        o.insert(QStringLiteral("jobId"), a.jobId);
        o.insert(QStringLiteral("jobName"), a.jobName);
        o.insert(QStringLiteral("payload"), payloadJson(a.payload));
        if (!a.jobOptions.isEmpty())
            o.insert(QStringLiteral("jobOptions"), QJsonDocument::fromJson(a.jobOptions).object());
    }
    if (a.parent.attempted)
        o.insert(QStringLiteral("parent"),
                 QJsonObject{{QStringLiteral("table"), a.parent.table},
                             {QStringLiteral("column"), a.parent.column},
                             {QStringLiteral("id"), a.parent.parentId},
                             {QStringLiteral("newValue"), a.parent.newValue},
                             {QStringLiteral("rows"), a.parent.rows}});
    return o;
}

} // namespace

QStringList RunReport::unreadDomains() const
{
    QStringList names;
    for (const DomainReport &d : domains)
        if (d.candidateError)
            names << d.name;
    return names;
}

namespace {

// A domain's report; its candidates only `withCandidates` (a streamed report writes them one by
// one instead).
QJsonObject domainJson(const DomainReport &d, bool withCandidates)
{
    QJsonObject o{
        {QStringLiteral("name"), d.name},
        {QStringLiteral("counts"),
         QJsonObject{{QStringLiteral("SCHEDULED"), d.count(Verdict::Scheduled)},
                     {QStringLiteral("ABSENT"), d.count(Verdict::Absent)},
                     {QStringLiteral("UNKNOWN"), d.count(Verdict::Unknown)}}},
        // SCHEDULED candidates counted above but not in "candidates" (run.scheduledListed).
        {QStringLiteral("scheduledUnlisted"), static_cast<qint64>(d.unlistedScheduled.size())}};
    if (withCandidates) {
        QJsonArray cands;
        for (const CandidateVerdict &c : d.candidates)
            cands.append(candidateJson(c));
        o.insert(QStringLiteral("candidates"), cands);
    }
    if (d.candidateError)
        o.insert(QStringLiteral("candidateError"), *d.candidateError);
    QJsonObject scan{{QStringLiteral("ran"), d.scan.ran},
                     {QStringLiteral("pages"), d.scan.pages},
                     {QStringLiteral("jobsRead"), d.scan.jobsRead},
                     {QStringLiteral("malformed"), d.scan.malformed},
                     {QStringLiteral("unreadable"), QJsonArray::fromStringList(d.scan.unreadable)},
                     {QStringLiteral("restarts"), d.scan.restarts},
                     {QStringLiteral("rereads"), d.scan.rereads},
                     {QStringLiteral("queueRereads"), d.scan.queueRereads},
                     {QStringLiteral("reprioritized"), d.scan.reprioritized},
                     {QStringLiteral("rechecked"), d.scan.rechecked},
                     {QStringLiteral("movedLookedUp"), d.scan.movedLookedUp}};
    if (d.scan.error)
        scan.insert(QStringLiteral("error"), *d.scan.error);
    o.insert(QStringLiteral("scan"), scan);
    if (!d.heldReason.isEmpty()) {
        o.insert(QStringLiteral("held"), d.heldReason);
        o.insert(QStringLiteral("heldLimit"), d.heldLimit);
    }
    return o;
}

// One JSON value as compact text (a scalar has no document of its own: wrapped, then cut out).
QByteArray compact(const QJsonValue &v)
{
    if (v.isObject())
        return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact);
    if (v.isArray())
        return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact);
    const QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

// The members of `o` after the opening brace, as "key":value pairs.
void writeMembers(QIODevice &out, const QJsonObject &o, bool &first)
{
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        out.write(first ? "\n" : ",\n");
        first = false;
        out.write(compact(QJsonValue(it.key())));
        out.write(":");
        out.write(compact(it.value()));
    }
}

} // namespace

QJsonObject RunReport::headJson() const
{
    QJsonObject lockJson{{QStringLiteral("state"), LockReport::stateName(lock.state)},
                         {QStringLiteral("token"), lock.token},
                         {QStringLiteral("ttlMs"), lock.ttlMs},
                         {QStringLiteral("generation"), lock.generation},
                         {QStringLiteral("released"), lock.released},
                         {QStringLiteral("lost"), lock.lost}};
    if (!lock.error.isEmpty())
        lockJson.insert(QStringLiteral("error"), lock.error);
    if (lock.raisedFrom)
        lockJson.insert(QStringLiteral("raisedFrom"), lock.raisedFrom);
    QJsonObject o{
        {QStringLiteral("runId"), runId},
        {QStringLiteral("trigger"), trigger},
        {QStringLiteral("dryRun"), dryRun},
        {QStringLiteral("outcome"), outcomeName(outcome)},
        {QStringLiteral("outcomeDetail"), outcomeDetail},
        {QStringLiteral("startedAt"), startedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("finishedAt"), finishedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("lock"), lockJson},
        {QStringLiteral("counts"),
         QJsonObject{{QStringLiteral("SCHEDULED"), count(Verdict::Scheduled)},
                     {QStringLiteral("ABSENT"), count(Verdict::Absent)},
                     {QStringLiteral("UNKNOWN"), count(Verdict::Unknown)}}},
        {QStringLiteral("phasesMs"),
         QJsonObject{{QStringLiteral("lock"), phases.lockMs},
                     {QStringLiteral("candidates"), phases.candidatesMs},
                     {QStringLiteral("lookup"), phases.lookupMs},
                     {QStringLiteral("scan"), phases.scanMs},
                     {QStringLiteral("plan"), phases.planMs},
                     {QStringLiteral("execute"), phases.executeMs}}},
        {QStringLiteral("redisRoundTrips"), redisRoundTrips},
        {QStringLiteral("unreadDomains"), QJsonArray::fromStringList(unreadDomains())},
    };
    if (heldOpen) {
        QJsonArray groups;
        for (const HeldGroup &g : *heldOpen)
            groups.append(QJsonObject{
                {QStringLiteral("domain"), g.domain},
                {QStringLiteral("kind"), actionKindName(g.kind)},
                {QStringLiteral("limit"), g.limit},
                {QStringLiteral("count"), g.count},
                {QStringLiteral("oldestHeldAt"), g.oldest.toString(Qt::ISODateWithMs)}});
        o.insert(QStringLiteral("heldOpen"), groups);
    }
    if (!auditUnfinished.isEmpty())
        o.insert(QStringLiteral("auditUnfinished"), QJsonArray::fromStringList(auditUnfinished));
    if (!heldStoreErrors.isEmpty())
        o.insert(QStringLiteral("heldStoreErrors"), QJsonArray::fromStringList(heldStoreErrors));
    return o;
}

QJsonObject RunReport::toJson() const
{
    QJsonObject o = headJson();
    QJsonArray domainArray;
    for (const DomainReport &d : domains)
        domainArray.append(domainJson(d, true));
    QJsonArray actionArray;
    for (const Action &a : actions)
        actionArray.append(actionJson(a));
    o.insert(QStringLiteral("domains"), domainArray);
    o.insert(QStringLiteral("actions"), actionArray);
    return o;
}

void RunReport::writeJson(QIODevice &out) const
{
    // The same document as toJson(), written a candidate and an action at a time: at 100,000
    // candidates the whole tree as QJsonValues would cost several times the report itself.
    out.write("{");
    bool first = true;
    writeMembers(out, headJson(), first);
    out.write(first ? "\n\"domains\":[" : ",\n\"domains\":[");
    for (qsizetype i = 0; i < domains.size(); ++i) {
        QByteArray domain = compact(domainJson(domains.at(i), false));
        domain.chop(1); // its closing brace: the candidates go in first
        out.write(i == 0 ? "\n" : ",\n");
        out.write(domain);
        out.write(domain.endsWith('{') ? "\"candidates\":[" : ",\"candidates\":[");
        const QList<CandidateVerdict> &cands = domains.at(i).candidates;
        for (qsizetype c = 0; c < cands.size(); ++c) {
            out.write(c == 0 ? "\n" : ",\n");
            out.write(compact(candidateJson(cands.at(c))));
        }
        out.write("]}");
    }
    out.write("],\n\"actions\":[");
    for (qsizetype i = 0; i < actions.size(); ++i) {
        out.write(i == 0 ? "\n" : ",\n");
        out.write(compact(actionJson(actions.at(i))));
    }
    out.write("]}\n");
}

} // namespace reclaim
