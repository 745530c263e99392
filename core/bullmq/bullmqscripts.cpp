#include "bullmq/bullmqscripts.h"

#include "luasources.h"

namespace reclaim::bullmq::scripts {

const LuaScript &probe()
{
    static const LuaScript s("probe", lua::probe);
    return s;
}

const LuaScript &scanPage()
{
    static const LuaScript s("scanpage", lua::scanpage);
    return s;
}

const LuaScript &moves()
{
    static const LuaScript s("moves", lua::moves);
    return s;
}

const LuaScript &prioritized()
{
    static const LuaScript s("prioritized", lua::prioritized);
    return s;
}

const LuaScript &enqueue()
{
    static const LuaScript s("enqueue", lua::enqueue);
    return s;
}

} // namespace reclaim::bullmq::scripts
