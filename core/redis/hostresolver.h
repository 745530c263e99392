// Host names resolved within a deadline. getaddrinfo() has no timeout of its own: a DNS server
// that never answers holds the caller for the resolver's `timeout × attempts` per name server,
// and hiredis and QAbstractSocket's blocking connect both call it with no bound at all.
#pragma once

#include "ports/rediserror.h"
#include "util/expected.h"

#include <QDeadlineTimer>
#include <QStringList>

namespace reclaim {

// The numeric addresses `host` stands for, in the resolver's order; a numeric host is itself.
// A name is resolved on a thread of its own and the caller stops waiting at `deadline`
// (Kind::Timeout, naming `serverName`); that thread ends when getaddrinfo() does and frees what
// it found, so an abandoned lookup costs nothing but its own time.
Expected<QStringList, RedisError> resolveHost(const QString &host, const QString &serverName,
                                              const QDeadlineTimer &deadline);

} // namespace reclaim
