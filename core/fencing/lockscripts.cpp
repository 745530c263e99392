#include "fencing/lockscripts.h"

#include "luasources.h"

namespace reclaim::fencing::scripts {

const LuaScript &lockAcquire()
{
    static const LuaScript s("lockacquire", lua::lockacquire);
    return s;
}

const LuaScript &lockRelease()
{
    static const LuaScript s("lockrelease", lua::lockrelease);
    return s;
}

const LuaScript &lockRenew()
{
    static const LuaScript s("lockrenew", lua::lockrenew);
    return s;
}

const LuaScript &generationRaise()
{
    static const LuaScript s("generationraise", lua::generationraise);
    return s;
}

} // namespace reclaim::fencing::scripts
