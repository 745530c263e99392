// Stage 3 as a whole run makes it: the direct lookup of directlookup.h, keeping only what the
// run's report keeps.
#pragma once

#include "config/domainconfig.h"
#include "domain/runreport.h"
#include "ports/queueinspector.h"

namespace reclaim {

// Looks every candidate of `domain` up exactly as lookUpDirectly() does (queue by queue, in
// slices, each queue's long lists read once after its probes, wait and paused before active),
// with the same verdicts, and fills report.candidates and report.unlistedScheduled.
//
// Why not lookUpDirectly() and then drop: after a lost Redis a domain can have a million
// candidates, most of them healthy jobs deep in a long wait list, and holding a verdict and a
// sighting for each until the end cost ~900 bytes a candidate. Here a candidate found healthy
// is settled at once: the first `listed` of them (in the order they are found healthy) keep their
// evidence without payloads or row JSON; every later one is reduced to its row id
// (unlistedScheduled). A lookup that waits for the long lists holds the candidate's index and
// the job's timestamps only: its job id is made again from the row, and when the lists say where
// the job is, its sighting has that state and those timestamps (not its name, attempts or failure
// reason, which the probe read and the lookup let go).
//
// report.candidates keeps the candidates' order as read.
void lookUpIntoReport(DomainReport &report, const DomainConfig &domain, QList<Candidate> candidates,
                      QueueInspector &inspector, int listed);

} // namespace reclaim
