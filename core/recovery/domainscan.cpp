#include "recovery/domainscan.h"

#include "recovery/directlookup.h"
#include "recovery/payloadrowid.h"

#include <QHash>
#include <QSet>

namespace reclaim {

QStringList scanOrder()
{
    return {QStringLiteral("active"),  QStringLiteral("waiting-children"),
            QStringLiteral("delayed"), QStringLiteral("prioritized"),
            QStringLiteral("paused"),  QStringLiteral("wait"),
            QStringLiteral("active")};
}

namespace {

// How many unreadable job ids a report names; the count covers the rest.
constexpr qsizetype kUnreadableNamed = 20;

QString stateOfKey(const QString &key)
{
    return key == QLatin1String("wait") ? QStringLiteral("waiting") : key;
}

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

    // Reads one state to its end; false when it could not (stats.error says why).
    bool readState(const QString &queue, const QString &state)
    {
        ScanCursor cursor;
        qint64 budget = -1;
        for (int pages = 0; !m_unresolved.isEmpty(); ++pages) {
            auto page = m_inspector.scanPage(m_domain.keyPrefix, queue, state, cursor, m_pageSize);
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
            const QString seenAs = page->queuePaused && state == QLatin1String("wait")
                                       ? QStringLiteral("paused")
                                       : stateOfKey(state);
            for (const ScanPage::Job &job : page->jobs)
                match(queue, state, seenAs, job);
            if (!followMoves(queue))
                return false;
            if (page->done)
                return true;
            if (pages + 1 >= budget) {
                m_stats.error =
                    QStringLiteral("%1/%2 moved faster than the scan could read it (%3 pages, "
                                   "%4 restarts)")
                        .arg(queue, state)
                        .arg(pages + 1)
                        .arg(m_stats.restarts);
                return false;
            }
            cursor = page->next;
        }
        return true;
    }

    // Reads every state of one queue, then looks up by id each job the queue's event log says
    // moved meanwhile (it may have left a state before the scan got there and entered one the
    // scan had read); false when the queue could not be read to the end. The log is followed
    // after every page, not once at the end: BullMQ trims it to a fixed length, and a busy queue
    // writes that many entries in about a second — far less than one scan of a large queue, but
    // far more than one page takes.
    bool readQueue(const QString &queue)
    {
        m_moved.clear();
        auto mark = m_inspector.movesSince(m_domain.keyPrefix, queue, QString());
        if (!mark) {
            m_stats.error = QStringLiteral("could not read the event log of %1: %2")
                                .arg(queue, mark.error().describe());
            return false;
        }
        m_mark = mark->mark;
        for (const QString &state : scanOrder())
            if (!m_unresolved.isEmpty() && !readState(queue, state))
                return false;
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
    // Collects the jobs the queue's event log names since the last mark; false when entries
    // after the mark are gone, so the jobs that moved cannot all be named.
    bool followMoves(const QString &queue)
    {
        auto moves = m_inspector.movesSince(m_domain.keyPrefix, queue, m_mark);
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
        for (const QString &id : std::as_const(moves->jobIds))
            m_moved.insert(id);
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
    QString m_mark;        // the queue's event log, read up to here
    QSet<QString> m_moved; // jobs the log named since the queue's scan began
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
