// The process exit codes, documented in --help and the README.
#pragma once

namespace reclaim::exitcode {
constexpr int Ran = 0;              // a run completed (UNKNOWN candidates are not an error)
constexpr int Usage = 1;            // bad command line
constexpr int ConfigError = 2;      // the configuration file is missing or invalid
constexpr int LockHeld = 3;         // skipped: another runner holds the lock
constexpr int RedisUnreachable = 4; // skipped: Redis could not be reached to take the lock
constexpr int RunFailed =
    5; // PostgreSQL unreachable, the run could not proceed, or its report could not be written
constexpr int ServeFailed = 6;  // --daemon: the metrics address could not be listened on
constexpr int DomainUnread = 7; // the run completed, but a domain's candidates could not be read
constexpr int CheckWarned = 8;  // --check: no item failed, at least one warned
constexpr int CheckFailed = 9;  // --check: at least one item failed (or could not be checked)
constexpr int Held =
    10; // the run completed, but actions wait for an operator (policy approve or the guard)
constexpr int NotAllDecided = 11; // --approve/--reject: some named actions were not run/rejected
} // namespace reclaim::exitcode
