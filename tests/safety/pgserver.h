// The sandbox's PostgreSQL server as a fault target: restart it (pg_ctl restart -m fast), or
// find its postmaster to freeze it with SIGSTOP.
#pragma once

#include "support/sandboxenv.h"

namespace reclaim::test {

// Restarts the sandbox's PostgreSQL with `pg_ctl -m fast -w restart` (as the postgres user when
// we are root); true once it is accepting connections again.
bool restartPostgres(const SandboxEnv &env);

// The postmaster's pid (the first line of postmaster.pid in the data directory), 0 if unknown.
qint64 postmasterPid(const SandboxEnv &env);

// Sends `signal` to the postmaster and every process it started (the backends, among them the
// one serving Reclaim's connection): SIGSTOP freezes the whole server, SIGCONT resumes it.
// False when no postmaster was found.
bool signalServer(const SandboxEnv &env, int signal);

} // namespace reclaim::test
