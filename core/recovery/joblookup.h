// Find a job by id: its row in every domain whose table has it, whatever its status and age,
// what a direct lookup of its current job id sees in the domain's queues now, and whether it is
// a candidate at all. Writes nothing; the scan is not run (a legacy id found only by the scan
// reads ABSENT here).
#pragma once

#include "config/reclaimconfig.h"
#include "domain/verdict.h"
#include "ports/jobstore.h"
#include "ports/queueinspector.h"

#include <optional>

namespace reclaim {

struct JobExplanation
{
    QString domain;
    QString error;                          // the row could not be read: nothing else is known
    std::optional<CandidateVerdict> lookup; // the row and what its direct lookup saw
    bool candidate = false; // in a candidate status, of a planned type and past the threshold
};

// One entry per domain whose table has the row, or that could not be read.
QList<JobExplanation> explainJob(const ReclaimConfig &config, JobStore &store,
                                 QueueInspector &inspector, const QString &rowId);

} // namespace reclaim
