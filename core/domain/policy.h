// How an action of one kind may run (#29): on its own, after an operator's approval, or never.
// A value of the domain, not of the configuration: actions carry it so every front end (report,
// log, console, held-action store) tells why an action did or did not run without re-reading
// the configuration it was planned under.
#pragma once

#include <QString>
#include <optional>

namespace reclaim {

enum class Policy
{
    Auto,    // executed by whichever runner planned it (daemon, --once; the console asks first)
    Approve, // planned and held: it runs only when an operator approves it
    Observe  // planned and reported; never executed, never held
};

QString policyName(Policy p);                           // "auto", "approve", "observe"
std::optional<Policy> policyNamed(const QString &name); // nullopt: not a policy

} // namespace reclaim
