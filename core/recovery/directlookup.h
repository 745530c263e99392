// Stage 3: look each candidate up under its current job id in each of its domain's queues.
#pragma once

#include "config/domainconfig.h"
#include "domain/verdict.h"
#include "ports/queueinspector.h"

#include <QSet>

namespace reclaim {

// Candidates looked up per probe() call: a whole number of probe round trips, and the requests
// and replies of one slice are all a lookup holds of them at a time.
inline constexpr qsizetype kLookupSlice = 5000;

// The few distinct states and names a queue answers, held once rather than once per job.
class SharedWords
{
public:
    void share(QString &s);

private:
    QSet<QString> m_words;
};

// Looks `refs` (one queue's, one slice) up in one probe() call: one Sighting per ref, in order,
// with its queue, job id and FoundBy::Direct set, and the inspector's failure (or a missing
// answer) as that sighting's error, never as "missing".
QList<Sighting> probeSlice(const QList<JobRef> &refs, const QString &queue,
                           QueueInspector &inspector, SharedWords &words);

// Runnable somewhere, or held by a worker's live lock: Scheduled. A failed lookup, or an answer
// that is neither runnable nor one of the few that mean "not runnable": Unknown. Only a
// candidate every lookup saw and every answer said is not runnable is Absent.
void settleLookups(CandidateVerdict &v);

// Returns one CandidateVerdict per candidate, in order, with its direct-lookup evidence (all of
// it: payloads and row JSON included) and a provisional verdict: Scheduled (runnable somewhere),
// Unknown (a lookup failed) or Absent (every lookup succeeded and found nothing runnable — still
// subject to the scan). For a few candidates: an approval's re-check, the re-check after the
// scan; a whole run uses lookUpIntoReport() (runlookup.h), which keeps less.
QList<CandidateVerdict> lookUpDirectly(const DomainConfig &domain, QList<Candidate> candidates,
                                       QueueInspector &inspector);

// Settles each "list-unresolved" sighting (its job sits further from a list's tail than the probe
// walks) by reading the queue's lists once (wait and paused before active, so a job moving from
// waiting to active while they are read is still seen): it becomes the list's state, "stray", or
// a failed lookup when a list could not be read to its end.
void resolveLongLists(const QString &keyPrefix, const QList<Sighting *> &sightings,
                      QueueInspector &inspector);

// Stage 4b: every candidate still Absent after the scan is looked up directly once more, just
// before planning (its job id is known), so a job that moved back into a state the scan had
// already read is seen. A re-check that finds it, or fails, replaces Absent; its sightings are
// added to the evidence. Returns how many candidates were re-checked.
int recheckAbsent(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                  QueueInspector &inspector);

// Once every verdict is settled: a SCHEDULED candidate's job is healthy and nothing is done to
// it, so the payloads its lookups read and its row's JSON are let go (its status, updatedAt, the
// job's state, lock and timestamps stay as the evidence). After a data loss half the candidates
// can be healthy jobs, each payload up to 16 KiB; ABSENT and UNKNOWN keep theirs, as an operator
// may act on them.
void releaseScheduledDetails(QList<CandidateVerdict> &verdicts);

} // namespace reclaim
