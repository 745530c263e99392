// What the daemon logs about one finished run: a summary line, a line per action, and a line
// per domain that could not be read — as plain records, so tests can read them without a log.
#pragma once

#include "domain/runreport.h"
#include "logging/logger.h"

namespace reclaim {

struct LogRecord
{
    LogLevel level = LogLevel::Info;
    QString message;
    LogFields fields;
};

// `executeActions` says whether the run was allowed to apply its plan (policy auto, no dry run);
// it only changes how the summary reads. The summary ("event": "run") is always the last record.
QList<LogRecord> describeRun(const RunReport &report, bool executeActions);

LogRecord describeAction(const QString &runId, const Action &action);

} // namespace reclaim
