// The server-side scripts of the recovery lock (core/fencing/lua), each loaded on demand.
#pragma once

#include "redis/luascript.h"

namespace reclaim::fencing::scripts {

const LuaScript &lockAcquire();
const LuaScript &lockRelease();
const LuaScript &lockRenew();
const LuaScript &generationRaise();

} // namespace reclaim::fencing::scripts
