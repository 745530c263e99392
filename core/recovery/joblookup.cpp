#include "recovery/joblookup.h"

#include "recovery/directlookup.h"

namespace reclaim {

QList<JobExplanation> explainJob(const ReclaimConfig &config, JobStore &store,
                                 QueueInspector &inspector, const QString &rowId)
{
    QList<JobExplanation> out;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const DomainConfig &d : config.domains) {
        auto row = store.readRow(d, rowId);
        if (!row) {
            out << JobExplanation{d.name, row.error().message, std::nullopt, false};
            continue;
        }
        if (!row->has_value())
            continue;
        const Candidate &c = **row;
        JobExplanation e;
        e.domain = d.name;
        e.candidate = d.candidateStatuses.contains(c.status) &&
                      (d.types.isEmpty() || d.types.contains(c.type)) && c.updatedAt.isValid() &&
                      c.updatedAt.secsTo(now) > d.threshold.count();
        e.lookup = lookUpDirectly(d, {c}, inspector).first();
        out << e;
    }
    return out;
}

} // namespace reclaim
