#include "recovery/directlookup.h"

#include <QHash>
#include <QSet>

namespace reclaim {

namespace {

// Candidates looked up per probe() call: a whole number of probe round trips.
constexpr qsizetype kLookupSlice = 5000;

std::optional<QString> noteUnsettled(const Sighting &s)
{
    if (s.error)
        return *s.error;
    if (!isNotRunnableState(s.state))
        return QStringLiteral("job %1 was seen in state '%2', which settles nothing")
            .arg(s.jobId, s.state);
    return std::nullopt;
}

// Runnable somewhere, or held by a worker's live lock: Scheduled. A failed lookup, or an answer
// that is neither runnable nor one of the few that mean "not runnable": Unknown. Only a
// candidate every lookup saw and every answer said is not runnable is Absent.
void settle(CandidateVerdict &v)
{
    v.verdict = Verdict::Absent;
    for (const Sighting &s : v.evidence) {
        if (s.runnable() || s.heldByWorker()) {
            v.verdict = Verdict::Scheduled;
            v.unknownReason.clear();
            return;
        }
        const auto unsettled = noteUnsettled(s);
        if (unsettled && v.verdict != Verdict::Unknown) {
            v.verdict = Verdict::Unknown;
            v.unknownReason = QStringLiteral("%1: %2").arg(s.queue, *unsettled);
        }
    }
}

} // namespace

QList<CandidateVerdict> lookUpDirectly(const DomainConfig &domain, QList<Candidate> candidates,
                                       QueueInspector &inspector, LookupDetail detail)
{
    const bool light = detail == LookupDetail::Light;
    QList<CandidateVerdict> verdicts;
    verdicts.reserve(candidates.size());
    // One id per candidate, shared by its sighting in every queue (a mass recovery holds them).
    QStringList jobIds;
    jobIds.reserve(candidates.size());
    for (Candidate &c : candidates) {
        jobIds << domain.currentJobId(c.id, c.type);
        verdicts.append(CandidateVerdict{std::move(c), Verdict::Unknown, {}, {}, false});
        // Exactly one sighting per queue at most: no growth slack in a list held per candidate.
        verdicts.last().evidence.reserve(domain.queues.size());
    }
    candidates = {}; // each verdict holds its candidate now: the list given in is let go
    // The few distinct states and names a queue answers, held once rather than once per job.
    QSet<QString> words;
    auto shared = [&words](QString &s) {
        if (s.isEmpty())
            return;
        const auto it = words.constFind(s);
        if (it != words.constEnd())
            s = *it;
        else if (words.size() < 256)
            words.insert(s);
    };

    // Queue by queue: a candidate found runnable in one queue is not looked up in the next.
    for (const QString &queue : domain.queues) {
        QList<qsizetype> pending;
        for (qsizetype i = 0; i < verdicts.size(); ++i) {
            bool runnable = false;
            for (const Sighting &s : verdicts.at(i).evidence)
                runnable = runnable || s.runnable() || s.heldByWorker();
            if (!runnable)
                pending << i;
        }
        if (pending.isEmpty())
            break;
        // In slices: the requests, the replies and (when light) the payloads of one slice are
        // held at a time, not those of every candidate of a lost Redis at once.
        for (qsizetype at = 0; at < pending.size(); at += kLookupSlice) {
            const qsizetype end = qMin(pending.size(), at + kLookupSlice);
            QList<JobRef> refs;
            refs.reserve(end - at);
            for (qsizetype k = at; k < end; ++k)
                refs << JobRef{domain.keyPrefix, queue, jobIds.at(pending.at(k))};
            const auto results = inspector.probe(refs);
            for (qsizetype k = 0; k < refs.size(); ++k) {
                Sighting s;
                if (k < results.size() && results.at(k)) {
                    s = *results.at(k);
                } else {
                    s.error = k < results.size()
                                  ? results.at(k).error().describe()
                                  : QStringLiteral("the queue inspector returned too few results");
                }
                s.queue = queue;
                s.jobId = refs.at(k).jobId;
                s.how = FoundBy::Direct;
                shared(s.state);
                shared(s.name);
                CandidateVerdict &v = verdicts[pending.at(at + k)];
                if (light && (s.runnable() || s.heldByWorker())) {
                    // Healthy: nothing will be done to it, its payload and row are not kept.
                    s.data = QByteArray();
                    v.candidate.rowJson = QByteArray();
                } else if (light && !s.error && s.state == QLatin1String("list-unresolved")) {
                    // Almost always a healthy job deep in a long list; its payload is not kept
                    // while the lists are read (the verdict does not depend on it).
                    s.data = QByteArray();
                }
                v.evidence << std::move(s);
            }
        }
        QList<Sighting *> longLists;
        for (const qsizetype i : std::as_const(pending))
            for (Sighting &s : verdicts[i].evidence)
                if (!s.error && s.state == QLatin1String("list-unresolved"))
                    longLists << &s;
        resolveLongLists(domain.keyPrefix, longLists, inspector);
    }
    for (CandidateVerdict &v : verdicts)
        settle(v);
    if (light)
        releaseScheduledDetails(verdicts);
    return verdicts;
}

void resolveLongLists(const QString &keyPrefix, const QList<Sighting *> &sightings,
                      QueueInspector &inspector)
{
    QHash<QString, QList<Sighting *>> byQueue;
    for (Sighting *s : sightings)
        byQueue[s->queue] << s;
    for (auto it = byQueue.begin(); it != byQueue.end(); ++it) {
        const QString &queue = it.key();
        const QList<QPair<QString, QString>> lists{
            {QStringLiteral("wait"), QStringLiteral("waiting")},
            {QStringLiteral("paused"), QStringLiteral("paused")},
            {QStringLiteral("active"), QStringLiteral("active")}};
        QList<QPair<QString, QSet<QString>>> members;
        std::optional<QString> error;
        for (const auto &[list, state] : lists) {
            auto m = inspector.listMembers(keyPrefix, queue, list);
            if (!m) {
                error = m.error().describe();
                break;
            }
            members.append({state, *m});
        }
        for (Sighting *s : it.value()) {
            if (error) {
                s->error = *error;
                s->state.clear();
                continue;
            }
            s->state = QStringLiteral("stray");
            for (const auto &[state, ids] : members)
                if (ids.contains(s->jobId)) {
                    s->state = state;
                    break;
                }
        }
    }
}

int recheckAbsent(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                  QueueInspector &inspector)
{
    // In slices: after a data loss every candidate is absent, and looking them all up at once
    // would hold a second copy of every verdict. A slice is a whole number of probe round trips.
    constexpr qsizetype kRecheckSlice = 4000;
    QList<qsizetype> absent;
    for (qsizetype i = 0; i < verdicts.size(); ++i)
        if (verdicts.at(i).verdict == Verdict::Absent)
            absent << i;
    for (qsizetype at = 0; at < absent.size(); at += kRecheckSlice) {
        const QList<qsizetype> slice = absent.mid(at, kRecheckSlice);
        QList<Candidate> candidates;
        candidates.reserve(slice.size());
        for (const qsizetype i : slice)
            candidates << verdicts.at(i).candidate;
        const QList<CandidateVerdict> again = lookUpDirectly(domain, candidates, inspector);
        for (qsizetype k = 0; k < slice.size() && k < again.size(); ++k) {
            const CandidateVerdict &now = again.at(k);
            if (now.verdict == Verdict::Absent)
                continue;
            CandidateVerdict &v = verdicts[slice.at(k)];
            v.evidence << now.evidence;
            v.verdict = now.verdict;
            v.unknownReason =
                now.verdict == Verdict::Unknown
                    ? QStringLiteral("re-check before planning: %1").arg(now.unknownReason)
                    : QString();
        }
    }
    return static_cast<int>(absent.size());
}

void releaseScheduledDetails(QList<CandidateVerdict> &verdicts)
{
    for (CandidateVerdict &v : verdicts)
        if (v.verdict == Verdict::Scheduled) {
            v.candidate.rowJson = QByteArray();
            for (Sighting &s : v.evidence)
                s.data = QByteArray();
        }
}

} // namespace reclaim
