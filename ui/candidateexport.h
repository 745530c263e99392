// The candidates the console shows, written out for a ticket or a spreadsheet: CSV (a header
// line, then one line per candidate) or JSON (the run they come from, then one object per
// candidate). Secrets are redacted as they are on screen; the file is replaced whole or not at
// all.
#pragma once

#include "candidaterows.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace reclaim::ui {

struct ExportedRun
{
    QString runId;
    QDateTime startedAt;
    QDateTime ageReference; // what each row's age is measured against (the run's end)
    bool stale = false;     // the latest run did not complete: these rows are older
    QString staleWhy;
};

enum class ExportFormat
{
    Csv,
    Json
};

// JSON for a path ending in ".json" (any case), CSV otherwise.
ExportFormat exportFormatFor(const QString &path);

QByteArray candidatesCsv(const QList<const CandidateRow *> &rows, const ExportedRun &run);
QByteArray candidatesJson(const QList<const CandidateRow *> &rows, const ExportedRun &run);

// Writes `rows` to `path` in the format its name asks for; on failure returns false and says
// why in `error` (naming the file).
bool writeCandidates(const QString &path, const QList<const CandidateRow *> &rows,
                     const ExportedRun &run, QString *error);

} // namespace reclaim::ui
