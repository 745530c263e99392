// The recovery lock's token: unique per acquisition, and naming its holder so that an operator
// reading it in Redis (or in the console) knows who holds the lock.
#pragma once

#include <QString>

namespace reclaim {

// "reclaim;host=<host>;pid=<pid>;since=<ISO time>;nonce=<hex>".
QString makeLockToken();

struct LockHolder
{
    QString host;
    qint64 pid = 0;
    QString since;
    bool parsed = false;
};
LockHolder parseLockToken(const QString &token);
// Whether `holder` is this very process (its host name and pid): the daemon's start-up check
// runs beside its first run, and must not read that run's lock as someone else's.
bool isThisProcess(const LockHolder &holder);

} // namespace reclaim
