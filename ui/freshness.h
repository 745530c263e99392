// Whether the console's tables show the latest run, or an earlier one because the latest run was
// skipped or failed (Redis down, PostgreSQL down, another runner holding the lock). The tables
// then mark their rows stale, with their age, and approving is held until a run completes.
#pragma once

#include "domain/runreport.h"

#include <QDateTime>
#include <QString>

namespace reclaim::ui {

struct Freshness
{
    QDateTime shownRunAt;  // start of the completed run the tables show (invalid: none yet)
    QDateTime latestRunAt; // start of the latest run, when it did not complete (invalid: it did)
    QString why;           // what stopped the latest run, in words, secrets redacted

    // Rows are on screen and they are not what the latest run saw.
    bool stale() const { return shownRunAt.isValid() && latestRunAt.isValid(); }
    // How old the shown rows are at `now` ("12 min").
    QString shownAge(const QDateTime &now) const;
    // One sentence for the stale marking: which run the rows are from, how old, and why.
    QString explanation(const QDateTime &now) const;
    // Why approving is held (empty when it is not).
    QString approvalHold(const QDateTime &now) const;

    // What the console shows after `report` arrives.
    static Freshness after(const Freshness &before, const RunReport &report);

    bool operator==(const Freshness &o) const = default;
};

} // namespace reclaim::ui
