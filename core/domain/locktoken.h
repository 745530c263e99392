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

} // namespace reclaim
