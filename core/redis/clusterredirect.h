// The replies by which a Redis Cluster node says "not here" or "not now", read from a server
// error: MOVED and ASK name the node to ask, TRYAGAIN and CLUSTERDOWN ask for a wait. A command
// answered with one of these did not run, so it may be sent again. CROSSSLOT and a script's
// "non local key" are not among them: sending those again changes nothing.
#pragma once

#include "config/hostport.h"
#include "ports/rediserror.h"

#include <optional>

namespace reclaim {

struct ClusterRedirect
{
    enum class Kind
    {
        Moved,       // the slot lives on `node` now: patch the map and send there
        Ask,         // the slot is migrating and this key already moved: ASKING, then `node`
        TryAgain,    // a multi-key call during a migration whose keys are split: wait and resend
        ClusterDown, // the cluster cannot serve the slot right now: wait, read the map, resend
    };
    Kind kind = Kind::Moved;
    int slot = -1;
    HostPort node;
};

// `answeredBy` is the node that sent the error: a MOVED to ":port" (a node that does not know
// its own address) means that node's host.
std::optional<ClusterRedirect> parseClusterRedirect(const RedisError &error,
                                                    const HostPort &answeredBy);

} // namespace reclaim
