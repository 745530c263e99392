// A job row that may be orphaned, exactly as read from the job store.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>

namespace reclaim {

struct Candidate
{
    QString domain;
    QString id;
    QString type; // empty when the domain has no type column
    QString status;
    // The column's own text for updatedAt, fed back verbatim into the conditional write so
    // microseconds (which QDateTime drops) survive the round trip.
    QString updatedAtText;
    QDateTime updatedAt; // for display and age only
    // The whole row as JSON (UTF-8), for the operator's details view: bytes, not a QString, as
    // a mass recovery holds one per candidate for the whole run.
    QByteArray rowJson;
};

// Whether a read of candidates brings each row's JSON along (Candidate::rowJson). Only the
// console shows it; a headless run does without: at 100,000 candidates the rows' JSON was most
// of what the candidate query sent and of what the run held.
enum class RowJson
{
    Skip,
    Read
};

} // namespace reclaim

// Every member is relocatable, so a list of them is grown by realloc(), which moves a large block
// by remapping its pages: a list of a million candidates read row by row does not hold its old
// array and a new one at once each time it grows.
Q_DECLARE_TYPEINFO(reclaim::Candidate, Q_RELOCATABLE_TYPE);
