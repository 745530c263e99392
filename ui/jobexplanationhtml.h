// "Find job by id" in words: for each domain whose table has the row, its status and updatedAt,
// whether it is a candidate, and what a direct lookup of its job id sees in the queues now.
#pragma once

#include "recovery/joblookup.h"

#include <QString>

namespace reclaim::ui {

QString jobExplanationHtml(const QString &rowId, const QList<JobExplanation> &found,
                           const QString &error);

} // namespace reclaim::ui
