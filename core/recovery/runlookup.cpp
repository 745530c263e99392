#include "recovery/runlookup.h"

#include "recovery/directlookup.h"

#include <vector>

namespace reclaim {

namespace {

// A lookup whose job lies further from a list's tail than the probe walks, waiting for the
// queue's lists to be read. The queue is the loop's, the job id is made again from the row, the
// payload is let go (almost every such job is a healthy one deep in a long wait list): what is
// kept is what cannot be made again. 32 bytes, where a Sighting is 240 and its strings.
struct Deferred
{
    qsizetype candidate = 0;
    qint64 timestamp = 0;
    qint64 processedOn = 0;
    qint64 finishedOn = 0;
};

// Where a candidate stands in the lookup.
enum class Progress : quint8
{
    Open,   // not found runnable yet: looked up in the next queue
    Listed, // healthy, kept in the report with its evidence
    Counted // healthy beyond the listed ones: only its row id is kept
};

class RunLookup
{
public:
    RunLookup(DomainReport &report, const DomainConfig &domain, QList<Candidate> candidates,
              QueueInspector &inspector, int listed)
        : m_report(report), m_domain(domain), m_candidates(std::move(candidates)),
          m_inspector(inspector), m_listed(listed),
          m_progress(static_cast<size_t>(m_candidates.size()), Progress::Open),
          m_evidence(m_candidates.size())
    {}

    void run()
    {
        for (const QString &queue : m_domain.queues) {
            QList<qsizetype> open;
            for (qsizetype i = 0; i < m_candidates.size(); ++i)
                if (m_progress[static_cast<size_t>(i)] == Progress::Open)
                    open << i;
            if (open.isEmpty())
                break;
            QList<Deferred> deferred;
            for (qsizetype at = 0; at < open.size(); at += kLookupSlice)
                probe(queue, open.mid(at, kLookupSlice), deferred);
            open = {};
            resolve(queue, deferred);
        }
        keep();
    }

private:
    QString jobIdOf(qsizetype i) const
    {
        const Candidate &c = m_candidates.at(i);
        return m_domain.currentJobId(c.id, c.type);
    }

    void probe(const QString &queue, const QList<qsizetype> &slice, QList<Deferred> &deferred)
    {
        QList<JobRef> refs;
        refs.reserve(slice.size());
        for (const qsizetype i : slice)
            refs << JobRef{m_domain.keyPrefix, queue, jobIdOf(i)};
        QList<Sighting> seen = probeSlice(refs, queue, m_inspector, m_words);
        for (qsizetype k = 0; k < seen.size(); ++k) {
            Sighting &s = seen[k];
            const qsizetype i = slice.at(k);
            if (s.runnable() || s.heldByWorker())
                healthy(i, std::move(s));
            else if (!s.error && s.state == QLatin1String("list-unresolved"))
                deferred << Deferred{i, s.timestamp, s.processedOn, s.finishedOn};
            else
                keepSighting(i, std::move(s));
        }
    }

    // Evidence for a candidate that may be acted on. Its list is sized for one sighting per
    // queue: grown by append, the first one would take room for two (a quarter of a kilobyte
    // more each, for every ABSENT candidate of a lost Redis).
    void keepSighting(qsizetype i, Sighting s)
    {
        QList<Sighting> &evidence = m_evidence[i];
        if (evidence.capacity() == 0)
            evidence.reserve(m_domain.queues.size());
        evidence << std::move(s);
    }

    // Settled SCHEDULED: nothing will be done to it. Listed with its evidence (no payloads, no
    // row JSON), or beyond run.scheduledListed reduced to its row id.
    void healthy(qsizetype i, Sighting s)
    {
        if (m_listedSoFar < m_listed) {
            ++m_listedSoFar;
            m_progress[static_cast<size_t>(i)] = Progress::Listed;
            m_candidates[i].rowJson = QByteArray();
            s.data = QByteArray();
            for (Sighting &earlier : m_evidence[i])
                earlier.data = QByteArray();
            keepSighting(i, std::move(s));
            return;
        }
        count(i);
    }

    void count(qsizetype i)
    {
        m_progress[static_cast<size_t>(i)] = Progress::Counted;
        m_report.unlistedScheduled.insert(m_candidates.at(i).id);
        m_candidates[i] = Candidate();
        m_evidence[i] = QList<Sighting>();
    }

    // Reads the queue's lists once, after every probe of it (wait and paused before active: a
    // job moving from waiting to active while they are read is still seen), one at a time, and
    // settles each deferred lookup as resolveLongLists() does: the list's state, "stray", or a
    // failed lookup for every one of them when a list could not be read to its end.
    void resolve(const QString &queue, const QList<Deferred> &deferred)
    {
        if (deferred.isEmpty())
            return;
        static const QList<QPair<QString, QString>> lists{
            {QStringLiteral("wait"), QStringLiteral("waiting")},
            {QStringLiteral("paused"), QStringLiteral("paused")},
            {QStringLiteral("active"), QStringLiteral("active")}};
        // Which list each deferred lookup's job is in, by index into `lists`; -1: none yet.
        std::vector<qint8> in(static_cast<size_t>(deferred.size()), -1);
        std::optional<QString> error;
        for (qsizetype l = 0; l < lists.size() && !error; ++l) {
            // One list's members held at a time: a wait list of a million ids is ~20 MB even
            // held compactly, and nothing is decided before the last list is read.
            auto members = m_inspector.listMembers(m_domain.keyPrefix, queue, lists.at(l).first);
            if (!members) {
                error = members.error().describe();
                break;
            }
            for (qsizetype d = 0; d < deferred.size(); ++d)
                if (in[static_cast<size_t>(d)] < 0 &&
                    members->contains(jobIdOf(deferred.at(d).candidate)))
                    in[static_cast<size_t>(d)] = static_cast<qint8>(l);
        }
        // Almost every one is a healthy job about to be counted: room for all of them at once,
        // rather than a set that grows through a rehash holding two tables.
        if (!error)
            m_report.unlistedScheduled.reserve(m_report.unlistedScheduled.size() + deferred.size());
        for (qsizetype d = 0; d < deferred.size(); ++d) {
            const Deferred &at = deferred.at(d);
            const qint8 l = in[static_cast<size_t>(d)];
            if (!error && l >= 0 && m_listedSoFar >= m_listed) {
                count(at.candidate); // healthy and not listed: no sighting to make
                continue;
            }
            Sighting s;
            s.queue = queue;
            s.jobId = jobIdOf(at.candidate);
            s.how = FoundBy::Direct;
            s.timestamp = at.timestamp;
            s.processedOn = at.processedOn;
            s.finishedOn = at.finishedOn;
            if (error)
                s.error = *error;
            else
                s.state = l < 0 ? QStringLiteral("stray") : lists.at(l).second;
            if (s.runnable())
                healthy(at.candidate, std::move(s));
            else
                keepSighting(at.candidate, std::move(s));
        }
    }

    // Every candidate not counted, in the order read, with its verdict.
    void keep()
    {
        qsizetype kept = 0;
        for (const Progress p : m_progress)
            kept += p == Progress::Counted ? 0 : 1;
        QList<CandidateVerdict> out;
        out.reserve(kept);
        for (qsizetype i = 0; i < m_candidates.size(); ++i) {
            if (m_progress[static_cast<size_t>(i)] == Progress::Counted)
                continue;
            CandidateVerdict v{
                std::move(m_candidates[i]), Verdict::Unknown, std::move(m_evidence[i]), {}, false};
            settleLookups(v);
            out << std::move(v);
        }
        m_candidates = {};
        m_evidence = {};
        m_report.candidates = std::move(out);
    }

    DomainReport &m_report;
    const DomainConfig &m_domain;
    QList<Candidate> m_candidates;
    QueueInspector &m_inspector;
    const int m_listed;
    int m_listedSoFar = 0;
    std::vector<Progress> m_progress;
    QList<QList<Sighting>> m_evidence; // per candidate, what its lookups saw
    SharedWords m_words;
};

} // namespace

void lookUpIntoReport(DomainReport &report, const DomainConfig &domain, QList<Candidate> candidates,
                      QueueInspector &inspector, int listed)
{
    RunLookup lookup(report, domain, std::move(candidates), inspector, listed);
    lookup.run();
}

} // namespace reclaim
