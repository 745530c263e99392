// Everything one recovery run saw and did: the one value the console, daemon and tests read.
#pragma once

#include "domain/action.h"
#include "domain/heldaction.h"
#include "domain/rowidset.h"
#include "domain/verdict.h"

#include <QDateTime>
#include <QJsonObject>
class QIODevice;
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>

namespace reclaim {

struct LockReport
{
    enum class State
    {
        NotAttempted,
        Acquired,
        Held,
        Unreachable
    };
    State state = State::NotAttempted;
    // Ours when Acquired, the holder's when Held; when Unreachable, the one our acquire was
    // sent with (its answer lost, it may have taken the lock), or empty.
    QString token;
    qint64 ttlMs = -2;
    qint64 generation = 0;
    QString error;
    bool released = false;
    bool lost = false; // renewal failed or the token changed during the run
    // Non-zero: the Redis generation counter stood at this value, not above PostgreSQL's fence
    // (Redis flushed or replaced), and the acquire raised it past the fence.
    qint64 raisedFrom = 0;

    static QString stateName(State s);
};

struct ScanStats
{
    bool ran = false;
    int pages = 0;
    qint64 jobsRead = 0;
    int restarts = 0;      // pages that started a state again because every anchor had left it
    int rereads = 0;       // states read again: the page continued from a job that had moved
    int queueRereads = 0;  // queues read again: paused or resumed while they were read
    int reprioritized = 0; // jobs that entered `prioritized` while it was read, read again
    int rechecked = 0;     // candidates still absent after the scan, looked up directly once more
    int movedLookedUp = 0; // jobs the event log said moved during the scan, looked up by id
    int malformed = 0;     // jobs whose payload could not be parsed: any candidate's job, maybe
    // "<queue>/<state>/<job id>" of the first unreadable jobs, for an operator to look at.
    QStringList unreadable;
    std::optional<QString> error;
};

// How many candidates got each verdict, counted in one pass.
struct VerdictCounts
{
    int scheduled = 0;
    int absent = 0;
    int unknown = 0;
    int of(Verdict v) const
    {
        return v == Verdict::Scheduled ? scheduled : (v == Verdict::Absent ? absent : unknown);
    }
    VerdictCounts &operator+=(const VerdictCounts &o)
    {
        scheduled += o.scheduled;
        absent += o.absent;
        unknown += o.unknown;
        return *this;
    }
};

struct DomainReport
{
    QString name;
    std::optional<QString> candidateError; // the job store could not be read for this domain
    // Every ABSENT and UNKNOWN candidate, and the SCHEDULED ones up to run.scheduledListed.
    QList<CandidateVerdict> candidates;
    // The row ids of the SCHEDULED candidates beyond that: counted in count(), not listed. Their
    // jobs are healthy; a held action for one of these rows is settled by its id alone.
    RowIdSet unlistedScheduled;
    ScanStats scan;
    // Why none of this domain's actions executed (recovery/blastradiusguard.h); empty: not held.
    QString heldReason;
    // Which limit held it: no-trace, trace-unchecked, max-actions or absent-share.
    QString heldLimit;

    int count(Verdict v) const { return counts().of(v); }
    // Every verdict's count in one pass over the candidates (a report may list 200,000), or
    // settledCounts when set.
    VerdictCounts counts() const;
    // The counts, taken once by whoever prepared the report for many readers (the console, off
    // its UI thread). Whoever sets them changes no verdict afterwards.
    std::optional<VerdictCounts> settledCounts;
    // Every candidate read for the domain, listed or not.
    qsizetype candidateCount() const { return candidates.size() + unlistedScheduled.size(); }
};

struct PhaseTimes
{
    qint64 lockMs = 0;
    qint64 candidatesMs = 0;
    qint64 lookupMs = 0;
    qint64 scanMs = 0;
    qint64 planMs = 0;
    qint64 executeMs = 0;
};

struct RunReport
{
    enum class Outcome
    {
        Completed,          // looked at every domain (some candidates may still be UNKNOWN)
        SkippedLockHeld,    // another runner holds the lock
        SkippedUnreachable, // Redis could not be reached to take the lock
        Failed,             // the run could not proceed (for example PostgreSQL is down)
    };

    QString runId;
    QString trigger; // "daemon", "console", "once"
    bool dryRun = false;
    Outcome outcome = Outcome::Completed;
    QString outcomeDetail;
    QDateTime startedAt;
    QDateTime finishedAt;
    LockReport lock;
    QList<DomainReport> domains;
    QList<Action> actions;
    PhaseTimes phases;
    qint64 redisRoundTrips = 0;
    // Held actions that could not be kept for the operators ("<domain>: <error>"): they are
    // still held in this report, and the next run holds them again.
    QStringList heldStoreErrors;
    // Audit completions that could not be written even at the end of the run (PostgreSQL away):
    // those attempts' audit rows still read "started". One line each.
    QStringList auditUnfinished;
    // Every action held now, by any runner, grouped (read after this run kept its own);
    // nullopt when this run did not read them (dry run, skipped, no store).
    std::optional<QList<HeldGroup>> heldOpen;

    static QString outcomeName(Outcome o);
    // A fresh run id (8 hex digits): made before a run starts when its first log line must
    // already carry it, or by the run itself.
    static QString newRunId();
    int count(Verdict v) const;
    VerdictCounts counts() const; // every domain's, in one pass each
    int count(ActionResult r) const;
    const CandidateVerdict *find(const QString &domain, const QString &rowId) const;
    // Domains whose candidates could not be read: a run that completed with any is not a
    // success (exit code, metrics, console), though the other domains were still reconciled.
    QStringList unreadDomains() const;

    // The report as JSON (domain/runreportjson.cpp), streamed to `out` a candidate and an
    // action at a time (--once --json), or whole as values for a small report and the tests.
    void writeJson(QIODevice &out) const;
    QJsonObject toJson() const;
};

} // namespace reclaim
