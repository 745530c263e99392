#include "recovery/directlookup.h"

#include <QHash>

namespace reclaim {

namespace {

std::optional<QString> noteUnsettled(const Sighting &s)
{
    if (s.error)
        return *s.error;
    if (!isNotRunnableState(s.state))
        return QStringLiteral("job %1 was seen in state '%2', which settles nothing")
            .arg(s.jobId, s.state);
    return std::nullopt;
}

} // namespace

void SharedWords::share(QString &s)
{
    if (s.isEmpty())
        return;
    const auto it = m_words.constFind(s);
    if (it != m_words.constEnd())
        s = *it;
    else if (m_words.size() < 256)
        m_words.insert(s);
}

QList<Sighting> probeSlice(const QList<JobRef> &refs, const QString &queue,
                           QueueInspector &inspector, SharedWords &words)
{
    auto results = inspector.probe(refs);
    QList<Sighting> out;
    out.reserve(refs.size());
    for (qsizetype k = 0; k < refs.size(); ++k) {
        Sighting s;
        if (k < results.size() && results.at(k)) {
            s = std::move(*results[k]);
        } else {
            s.error = k < results.size()
                          ? results.at(k).error().describe()
                          : QStringLiteral("the queue inspector returned too few results");
        }
        s.queue = queue;
        s.jobId = refs.at(k).jobId;
        s.how = FoundBy::Direct;
        words.share(s.state);
        words.share(s.name);
        out << std::move(s);
    }
    return out;
}

void settleLookups(CandidateVerdict &v)
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

QList<CandidateVerdict> lookUpDirectly(const DomainConfig &domain, QList<Candidate> candidates,
                                       QueueInspector &inspector)
{
    QList<CandidateVerdict> verdicts;
    verdicts.reserve(candidates.size());
    for (Candidate &c : candidates)
        verdicts.append(CandidateVerdict{std::move(c), Verdict::Unknown, {}, {}, false});
    candidates = {};
    SharedWords words;

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
        for (qsizetype at = 0; at < pending.size(); at += kLookupSlice) {
            const qsizetype end = qMin(pending.size(), at + kLookupSlice);
            QList<JobRef> refs;
            refs.reserve(end - at);
            for (qsizetype k = at; k < end; ++k) {
                const Candidate &c = verdicts.at(pending.at(k)).candidate;
                refs << JobRef{domain.keyPrefix, queue, domain.currentJobId(c.id, c.type)};
            }
            QList<Sighting> seen = probeSlice(refs, queue, inspector, words);
            for (qsizetype k = 0; k < seen.size(); ++k)
                verdicts[pending.at(at + k)].evidence << std::move(seen[k]);
        }
        QList<Sighting *> longLists;
        for (const qsizetype i : std::as_const(pending))
            for (Sighting &s : verdicts[i].evidence)
                if (!s.error && s.state == QLatin1String("list-unresolved"))
                    longLists << &s;
        resolveLongLists(domain.keyPrefix, longLists, inspector);
    }
    for (CandidateVerdict &v : verdicts)
        settleLookups(v);
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
        QList<QPair<QString, RowIdSet>> members;
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
