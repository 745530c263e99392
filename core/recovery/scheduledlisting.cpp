#include "recovery/scheduledlisting.h"

namespace reclaim {

void listScheduledUpTo(DomainReport &domain, int listed)
{
    QList<CandidateVerdict> &all = domain.candidates;
    qsizetype scheduled = 0;
    qsizetype kept = 0;
    for (const CandidateVerdict &v : std::as_const(all))
        if (v.verdict != Verdict::Scheduled || ++scheduled <= listed)
            ++kept;
    if (kept == all.size())
        return;
    // A new list of exactly the kept size: the old one's array (a few hundred bytes per
    // candidate) goes with it, which erasing in place would not give back.
    QList<CandidateVerdict> keep;
    keep.reserve(kept);
    domain.unlistedScheduled.reserve(domain.unlistedScheduled.size() + all.size() - kept);
    scheduled = 0;
    for (CandidateVerdict &v : all) {
        if (v.verdict != Verdict::Scheduled || ++scheduled <= listed)
            keep << std::move(v);
        else
            domain.unlistedScheduled.insert(v.candidate.id);
    }
    all = std::move(keep);
}

} // namespace reclaim
