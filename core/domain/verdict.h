// The three verdicts and the evidence behind each (SPEC §2).
#pragma once

#include "domain/candidate.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace reclaim {

enum class Verdict
{
    Scheduled,
    Absent,
    Unknown
};

QString verdictName(Verdict v);

enum class FoundBy
{
    Direct,
    Scan
};

// What one lookup of one BullMQ job id in one queue saw, or why it could not look.
struct Sighting
{
    QString queue;
    QString jobId;
    FoundBy how = FoundBy::Direct;
    // A BullMQ state ("waiting", "active", "completed", ...), "missing" (no job object) or
    // "stray" (a job object in no state). Empty when the lookup failed: see error.
    QString state;
    std::optional<QString> error;
    qint64 lockTtlMs = -2; // PTTL of <prefix>:<queue>:<id>:lock: -2 none, -1 no expiry
    QString name;
    QString failedReason;
    QString attempts;
    qint64 timestamp = 0;
    qint64 processedOn = 0;
    qint64 finishedOn = 0;
    QByteArray data; // the job payload (truncated for very large payloads)

    bool failed() const { return error.has_value(); }
    bool runnable() const;
    // A worker holds BullMQ's lock on this job (a live or never-expiring <id>:lock key): it is
    // being worked on, whatever structure lists it, so it is never an orphan.
    bool heldByWorker() const { return !error && lockTtlMs != -2; }
};

} // namespace reclaim

// Relocatable, as Candidate is (candidate.h): std::optional<QString> holds its QString in place.
Q_DECLARE_TYPEINFO(reclaim::Sighting, Q_RELOCATABLE_TYPE);

namespace reclaim {

bool isRunnableState(const QString &state);
// The answers that say a job is not runnable: no job hash ("missing"), a hash in no structure
// ("stray"), or retained finished ("completed", "failed"). Every other non-runnable answer (a
// state this code does not know, a list not yet walked) is "could not look", never "not there".
bool isNotRunnableState(const QString &state);
// Every state a lookup may answer: the runnable ones, the not-runnable ones, and
// "list-unresolved" (a list longer than the probe walks, to be read by listMembers()).
bool isKnownLookupState(const QString &state);

struct CandidateVerdict
{
    Candidate candidate;
    Verdict verdict = Verdict::Unknown;
    QList<Sighting> evidence;
    QString unknownReason; // set for Unknown: the first error that stopped us looking
    bool scanned = false;  // the domain scan ran for this candidate

    // The one-line summary an operator reads in the table.
    QString summary() const;
};

} // namespace reclaim

Q_DECLARE_TYPEINFO(reclaim::CandidateVerdict, Q_RELOCATABLE_TYPE);
