// The seeder's manifest (refapp/seed.js --manifest) as the oracle of a run: every candidate's
// verdict, and the sighting behind it (how it was found, in which state, whether a worker's lock
// was held), as the manifest says; rows that are no candidates absent from the report.
#pragma once

#include "domain/runreport.h"

#include <QJsonObject>
#include <QStringList>

namespace reclaim::test {

// A string field of a manifest row.
QString str(const QJsonObject &o, const char *key);

// "domain/id [kind]": how the problems name a row.
QString rowName(const QJsonObject &row);

// Everything the manifest says about one candidate, checked against what the run saw.
QStringList candidateProblems(const QJsonObject &row, const CandidateVerdict &v);

// Verdicts of every manifest row: candidates as expected, non-candidates absent from the report.
QStringList verdictProblems(const QJsonObject &manifest, const RunReport &report);

} // namespace reclaim::test
