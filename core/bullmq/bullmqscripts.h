// The server-side scripts the BullMQ adapter runs (core/bullmq/lua), each loaded on demand.
#pragma once

#include "redis/luascript.h"

namespace reclaim::bullmq::scripts {

const LuaScript &probe();
const LuaScript &scanPage();
const LuaScript &moves();
const LuaScript &prioritized();
const LuaScript &enqueue();

} // namespace reclaim::bullmq::scripts
