// Which BullMQ release family laid out a queue in Redis, read from the `version` field BullMQ's
// Queue writes into the queue's meta hash ("bullmq:5.81.5"), and what Reclaim may do with it.
#pragma once

#include <QString>

namespace reclaim {

// The families differ in what an add writes (SPEC §4, README "BullMQ versions"):
//  4.x  no marker key; a paused queue's jobs go to the `paused` list; a prioritized job wakes
//       workers with a "0:0" entry pushed on an empty wait list (workers block on BRPOPLPUSH).
//  5.x  workers block on the `marker` sorted set; a paused queue's jobs go to the `paused` list.
//  6.x  the `marker` sorted set; no `paused` list: a paused queue keeps its jobs in `wait`.
// The structures a lookup or scan reads (wait, paused, active, delayed, prioritized,
// waiting-children, completed, failed, <id>:lock) are read the same way in all three.
struct BullmqLayout
{
    enum class Family
    {
        Unstamped, // the meta hash has no `version`: no BullMQ Queue has opened the queue
        Bullmq4,
        Bullmq5,
        Bullmq6,
        Unknown, // another library, or a major Reclaim was not built for (newer): never guessed
    };

    Family family = Family::Unstamped;
    QString version; // the meta field as read ("bullmq:5.81.5"), empty when unstamped
    // The queue has no stamp and the family is the one its domain says to assume
    // (domains[].bullmqIfUnstamped): after a data loss the meta hash is gone with the jobs,
    // and the application's Queue only writes it again when it restarts.
    bool assumed = false;

    static BullmqLayout fromMetaVersion(const QString &version);
    // What a requeue writes: the stamp's family, or, with no stamp, `ifUnstamped` ("4", "5",
    // "6"; empty: nothing is assumed and the write is refused).
    static BullmqLayout forWriting(const QString &version, const QString &ifUnstamped);

    // Lookups and scans read the structures every known family shares; an unstamped queue
    // (nothing opened it as a Queue) has the same ones.
    bool readable() const { return family != Family::Unknown; }
    // A requeue writes what that family's own add writes, so only a known family is written.
    bool writable() const;
    // "4", "5", "6": the family the enqueue script writes for; empty when not writable.
    QString familyTag() const;
    // Why `queue` is not read (or not written): for an error message naming the queue and,
    // for a queue with no stamp, the key that lets it be written.
    QString refusal(const QString &queue) const;
    // "bullmq 5.x (stamp bullmq:5.81.5)" or "bullmq 5.x (no stamp: domains[].bullmqIfUnstamped)".
    QString describe() const;
};

} // namespace reclaim
