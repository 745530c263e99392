#include "recovery/domainscan.h"

#include "recovery/directlookup.h"
#include "recovery/payloadrowid.h"

#include <QHash>
#include <QSet>

namespace reclaim {

QStringList scanOrder()
{
    return {QStringLiteral("active"),  QStringLiteral("waiting-children"),
            QStringLiteral("delayed"), QStringLiteral("paused"),
            QStringLiteral("wait"),    QStringLiteral("prioritized"),
            QStringLiteral("paused"),  QStringLiteral("wait"),
            QStringLiteral("active")};
}

namespace {

// How many unreadable job ids a report names; the count covers the rest.
constexpr qsizetype kUnreadableNamed = 20;
// How many times a queue is read from the start when it was paused or resumed during a read.
constexpr int kQueuePasses = 3;

QString stateOfKey(const QString &key)
{
    return key == QLatin1String("wait") ? QStringLiteral("waiting") : key;
}

// Where a state's reader stands: the adapter's cursor, and from which of the scan's event-log
// reads on the jobs it is anchored to could have moved (its page was read after the read before
// that one: a move in that read may be just before the page, which re-reading covers anyway).
struct Reader
{
    ScanCursor cursor;
    qsizetype movesFrom = 0;
};

class Scan
{
public:
    Scan(const DomainConfig &domain, QList<CandidateVerdict> &verdicts, QueueInspector &inspector,
         int pageSize)
        : m_domain(domain), m_verdicts(verdicts), m_inspector(inspector), m_pageSize(pageSize)
    {
        for (qsizetype i = 0; i < verdicts.size(); ++i)
            if (verdicts.at(i).verdict != Verdict::Scheduled)
                m_unresolved.insert(verdicts.at(i).candidate.id, i);
    }

    bool needed() const { return !m_unresolved.isEmpty(); }

    // Reads one state from `reader` to its end, leaving `reader` where the last page ended;
    // false when it could not (stats.error says why). Re-reading is safe, skipping is not: a
    // page that continued from a job that moved after it was read (left and came back: a retry,
    // a backoff) proves nothing about what lay between, so the state is read again from its
    // start; past the page budget the state is "could not look".
    bool readState(const QString &queue, const QString &state, Reader &reader)
    {
        if (state != QLatin1String("prioritized"))
            return readPages(queue, state, reader);
        // A changePriority writes no event and can move a job from ahead of the reader to
        // behind it: after the pages, every job that entered the set since they began is read
        // at once (prioritized.lua).
        auto mark = m_inspector.prioritizedSince(m_domain.keyPrefix, queue, QString());
        if (!mark) {
            m_stats.error = QStringLiteral("could not mark the priority counter of %1: %2")
                                .arg(queue, mark.error().describe());
            return false;
        }
        if (!readPages(queue, state, reader))
            return false;
        if (m_unresolved.isEmpty())
            return true;
        auto since = m_inspector.prioritizedSince(m_domain.keyPrefix, queue, mark->mark);
        if (!since) {
            m_stats.error =
                QStringLiteral("could not read the jobs prioritized in %1 during the scan: %2")
                    .arg(queue, since.error().describe());
            return false;
        }
        m_stats.jobsRead += since->jobs.size();
        m_stats.reprioritized += static_cast<int>(since->jobs.size());
        for (const ScanPage::Job &job : std::as_const(since->jobs))
            match(queue, state, state, job);
        return true;
    }

    bool readPages(const QString &queue, const QString &state, Reader &reader)
    {
        qint64 budget = -1;
        for (int pages = 0; !m_unresolved.isEmpty(); ++pages) {
            const qsizetype readAt = m_movesLog.size();
            // The page and the event log after it, in one round trip.
            auto step = m_inspector.scanPageThenMoves(m_domain.keyPrefix, queue, state,
                                                      reader.cursor, m_pageSize, m_mark);
            auto &page = step.page;
            if (!page) {
                m_stats.error = QStringLiteral("scan of %1/%2 failed after %3 pages: %4")
                                    .arg(queue, state)
                                    .arg(pages)
                                    .arg(page.error().describe());
                return false;
            }
            ++m_stats.pages;
            m_stats.jobsRead += page->jobs.size();
            m_stats.restarts += page->restarted ? 1 : 0;
            if (budget < 0)
                budget = scanPageBudget(page->stateSize, m_pageSize);
            notePaused(*page, state);
            const QString seenAs = page->queuePaused && state == QLatin1String("wait")
                                       ? QStringLiteral("paused")
                                       : stateOfKey(state);
            for (const ScanPage::Job &job : page->jobs)
                match(queue, state, seenAs, job);
            if (!takeMoves(queue, step.moves))
                return false;
            const bool anchorMoved =
                !page->continuedFrom.isEmpty() && movedSince(reader.movesFrom, page->continuedFrom);
            if (anchorMoved) {
                ++m_stats.rereads;
                reader = Reader{};
            } else {
                if (page->done) {
                    // Where the next read of this state (a continuation) starts.
                    reader.cursor = page->next;
                    reader.movesFrom = readAt;
                    return true;
                }
                reader.cursor = page->next;
                reader.movesFrom = readAt;
            }
            if (pages + 1 >= budget) {
                m_stats.error =
                    QStringLiteral("%1/%2 moved faster than the scan could read it (%3 pages, "
                                   "%4 restarts, %5 re-reads)")
                        .arg(queue, state)
                        .arg(pages + 1)
                        .arg(m_stats.restarts)
                        .arg(m_stats.rereads);
                return false;
            }
        }
        return true;
    }

    // Reads every state of one queue, then looks up by id each job the queue's event log says
    // moved meanwhile (it may have left a state before the scan got there and entered one the
    // scan had read); false when the queue could not be read to the end. The log is followed
    // after every page, not once at the end: BullMQ trims it to a fixed length, and a busy queue
    // writes that many entries in about a second — far less than one scan of a large queue, but
    // far more than one page takes. A pause or resume during the read (BullMQ before 6 renames
    // `wait` to `paused` and back; the event names no job) makes the whole queue read again.
    bool readQueue(const QString &queue)
    {
        m_moved.clear();
        m_movesLog.clear();
        auto mark = m_inspector.movesSince(m_domain.keyPrefix, queue, QString());
        if (!mark) {
            m_stats.error = QStringLiteral("could not read the event log of %1: %2")
                                .arg(queue, mark.error().describe());
            return false;
        }
        m_mark = mark->mark;
        for (int pass = 1; !m_unresolved.isEmpty(); ++pass) {
            m_pausedSeen.reset();
            m_pauseMoved = false;
            m_pauseMatters = false;
            QHash<QString, Reader> readers; // a state read twice continues where it ended
            for (const QString &state : scanOrder()) {
                if (m_unresolved.isEmpty())
                    break;
                Reader fresh;
                Reader &reader = state == QLatin1String("active") ? fresh : readers[state];
                if (!readState(queue, state, reader))
                    return false;
            }
            if (!m_pauseMoved || !m_pauseMatters)
                break;
            ++m_stats.queueRereads;
            if (pass >= kQueuePasses) {
                m_stats.error = QStringLiteral("%1 was paused or resumed during each of %2 reads "
                                               "of it: its waiting jobs moved between lists "
                                               "under the reader")
                                    .arg(queue)
                                    .arg(pass);
                return false;
            }
        }
        if (m_unresolved.isEmpty())
            return true;
        if (!followMoves(queue))
            return false;
        return lookUpMoved(queue, QStringList(m_moved.cbegin(), m_moved.cend()));
    }

    ScanStats finish()
    {
        // A job whose payload could not be read could be any unresolved candidate's: none of
        // them is known to be missing.
        std::optional<QString> reason = m_stats.error;
        if (!reason && m_stats.malformed > 0)
            reason = QStringLiteral("scan met %1 unreadable job%2 (%3): any of them could be "
                                    "this row's")
                         .arg(m_stats.malformed)
                         .arg(m_stats.malformed == 1 ? QString() : QStringLiteral("s"))
                         .arg(m_stats.unreadable.join(QStringLiteral(", ")) +
                              (m_stats.malformed > m_stats.unreadable.size() ? QStringLiteral(", …")
                                                                             : QString()));
        for (auto it = m_unresolved.constBegin(); it != m_unresolved.constEnd(); ++it) {
            CandidateVerdict &v = m_verdicts[it.value()];
            v.scanned = true;
            if (reason) {
                v.verdict = Verdict::Unknown;
                if (v.unknownReason.isEmpty())
                    v.unknownReason = *reason;
            }
        }
        return m_stats;
    }

    ScanStats &stats() { return m_stats; }

private:
    // A page saw the queue's paused flag: a change within one read of the queue means its lists
    // may have been renamed between pages. That matters where a pause or resume moves jobs
    // between lists: bullmq before 6, or a `paused` list an older release left behind.
    void notePaused(const ScanPage &page, const QString &state)
    {
        m_pauseMatters = m_pauseMatters || page.pauseMovesJobs ||
                         (state == QLatin1String("paused") && page.stateSize > 0);
        if (!m_pausedSeen)
            m_pausedSeen = page.queuePaused;
        else if (*m_pausedSeen != page.queuePaused)
            m_pauseMoved = true;
    }

    // Whether the event log named `jobId` in any of its reads from `from` on.
    bool movedSince(qsizetype from, const QString &jobId) const
    {
        for (qsizetype i = qMax<qsizetype>(0, from); i < m_movesLog.size(); ++i)
            if (m_movesLog.at(i).contains(jobId))
                return true;
        return false;
    }

    // Collects the jobs the queue's event log names since the last mark; false when entries
    // after the mark are gone, so the jobs that moved cannot all be named.
    bool followMoves(const QString &queue)
    {
        return takeMoves(queue, m_inspector.movesSince(m_domain.keyPrefix, queue, m_mark));
    }

    bool takeMoves(const QString &queue, const Expected<QueueMoves, RedisError> &moves)
    {
        if (!moves) {
            m_stats.error = QStringLiteral("could not read the event log of %1: %2")
                                .arg(queue, moves.error().describe());
            return false;
        }
        if (!moves->complete) {
            m_stats.error = QStringLiteral("%1 moved faster than its event log could tell during "
                                           "the scan: the jobs that moved cannot all be named")
                                .arg(queue);
            return false;
        }
        m_mark = moves->mark;
        QSet<QString> named(moves->jobIds.cbegin(), moves->jobIds.cend());
        m_moved.unite(named);
        m_movesLog.append(std::move(named));
        m_pauseMoved = m_pauseMoved || moves->pausedOrResumed;
        return true;
    }

    // Looks up by id each job the event log named, with its whole payload (the match reads
    // data.jobId in it; a payload cut short could be anyone's). A job further from a list's tail
    // than the probe walks is settled by reading the lists, as the direct lookup does; an answer
    // that settles nothing makes the domain's unresolved candidates UNKNOWN.
    bool lookUpMoved(const QString &queue, const QStringList &ids)
    {
        if (ids.isEmpty())
            return true;
        QList<JobRef> refs;
        refs.reserve(ids.size());
        for (const QString &id : ids)
            refs << JobRef{m_domain.keyPrefix, queue, id};
        const auto seen = m_inspector.probe(refs, PayloadSize::Whole);
        m_stats.movedLookedUp += static_cast<int>(ids.size());
        QList<Sighting> sightings;
        sightings.reserve(refs.size());
        for (qsizetype i = 0; i < refs.size(); ++i) {
            if (i >= seen.size() || !seen.at(i)) {
                // A job that moved and could not be looked at could be any candidate's.
                m_stats.error =
                    QStringLiteral(
                        "could not look up job %1 of %2, which moved during the scan: %3")
                        .arg(refs.at(i).jobId, queue,
                             i < seen.size() ? seen.at(i).error().describe()
                                             : QStringLiteral("no answer"));
                return false;
            }
            sightings << *seen.at(i);
        }
        QList<Sighting *> longLists;
        for (Sighting &s : sightings)
            if (s.state == QLatin1String("list-unresolved"))
                longLists << &s;
        resolveLongLists(m_domain.keyPrefix, longLists, m_inspector);
        for (const Sighting &s : std::as_const(sightings)) {
            if (s.error) {
                m_stats.error = QStringLiteral("could not find job %1 of %2, which moved during "
                                               "the scan, in a long list: %3")
                                    .arg(s.jobId, queue, *s.error);
                return false;
            }
            if (s.runnable() || s.heldByWorker()) {
                match(queue, s.state, s.state, ScanPage::Job{s.jobId, s.data});
                continue;
            }
            if (!isNotRunnableState(s.state)) {
                m_stats.error = QStringLiteral("job %1 of %2, which moved during the scan, was "
                                               "seen in state '%3', which settles nothing")
                                    .arg(s.jobId, queue, s.state);
                return false;
            }
            // Finished or gone: not evidence for anyone.
        }
        return true;
    }

    void match(const QString &queue, const QString &state, const QString &seenAs,
               const ScanPage::Job &job)
    {
        if (!job.data)
            return; // an id without a job hash cannot run
        const PayloadRowId payload = readPayloadRowId(*job.data);
        if (payload.read == PayloadRowId::Read::Unreadable) {
            ++m_stats.malformed;
            if (m_stats.unreadable.size() < kUnreadableNamed)
                m_stats.unreadable << QStringLiteral("%1/%2/%3").arg(queue, state, job.id);
            return;
        }
        if (payload.read == PayloadRowId::Read::NamesNone)
            return; // read, and names no row: not a match
        const auto it = m_unresolved.constFind(payload.rowId);
        if (it == m_unresolved.constEnd())
            return;
        CandidateVerdict &v = m_verdicts[it.value()];
        Sighting s;
        s.queue = queue;
        s.jobId = job.id;
        s.how = FoundBy::Scan;
        s.state = seenAs;
        s.data = *job.data;
        v.evidence << s;
        v.verdict = Verdict::Scheduled;
        v.unknownReason.clear();
        m_unresolved.erase(it);
    }

    const DomainConfig &m_domain;
    QList<CandidateVerdict> &m_verdicts;
    QueueInspector &m_inspector;
    const int m_pageSize;
    QHash<QString, qsizetype> m_unresolved;
    QString m_mark;                   // the queue's event log, read up to here
    QSet<QString> m_moved;            // jobs the log named since the queue's scan began
    QList<QSet<QString>> m_movesLog;  // what each read of the log named, in order
    std::optional<bool> m_pausedSeen; // the queue's paused flag, as this pass first saw it
    bool m_pauseMoved = false;        // paused or resumed during this pass
    bool m_pauseMatters = false;      // ... and that can move this queue's waiting jobs
    ScanStats m_stats;
};

} // namespace

ScanStats scanDomain(const DomainConfig &domain, QList<CandidateVerdict> &verdicts,
                     QueueInspector &inspector, int pageSize)
{
    Scan scan(domain, verdicts, inspector, pageSize);
    if (!scan.needed())
        return {};
    scan.stats().ran = true;
    for (const QString &queue : domain.queues)
        if (!scan.needed() || !scan.readQueue(queue))
            return scan.finish();
    return scan.finish();
}

} // namespace reclaim
