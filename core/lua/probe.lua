-- Reclaim: where is one BullMQ job right now? Every check sees the same moment.
-- KEYS: 1 job hash, 2 job lock, 3 completed, 4 failed, 5 delayed, 6 prioritized,
--       7 waiting-children, 8 wait, 9 paused (legacy list), 10 active, 11 meta
-- ARGV: 1 job id, 2 how many list elements a lookup may walk, 3 max payload bytes returned
-- Returns {state, lockPttl, name, data, timestamp, processedOn, finishedOn, failedReason, attempts}
-- where state is a BullMQ state, "missing" (no job hash), "stray" (a hash in no state
-- structure) or "list-unresolved" (a list was longer than the walk limit: read it once instead).
local id = ARGV[1]
local limit = tonumber(ARGV[2])
local maxData = tonumber(ARGV[3])
local rcall = redis.call

local lockTtl = rcall('PTTL', KEYS[2])
if rcall('EXISTS', KEYS[1]) == 0 then
  return {'missing', lockTtl}
end

local f = rcall('HMGET', KEYS[1], 'name', 'data', 'timestamp', 'processedOn', 'finishedOn',
                'failedReason', 'atm', 'attemptsMade')

local state
if rcall('ZSCORE', KEYS[5], id) then state = 'delayed'
elseif rcall('ZSCORE', KEYS[6], id) then state = 'prioritized'
elseif rcall('ZSCORE', KEYS[7], id) then state = 'waiting-children'
elseif rcall('ZSCORE', KEYS[3], id) then state = 'completed'
elseif rcall('ZSCORE', KEYS[4], id) then state = 'failed'
end

if not state then
  local unresolved = false
  -- BullMQ pushes new jobs at the head and takes from the tail, so an old job sits near the
  -- tail: search from there, and stop after `limit` elements rather than walk a long list.
  local function inList(key)
    local len = rcall('LLEN', key)
    if len == 0 then return false end
    if limit > 0 and rcall('LPOS', key, id, 'RANK', -1, 'MAXLEN', limit) then return true end
    if len > limit then unresolved = true end
    return false
  end
  local paused = rcall('HEXISTS', KEYS[11], 'paused') == 1
  -- This script sees one moment and a job sits in one list at most, so the search order
  -- changes the cost, never the answer. Walking a long wait list in vain is the expensive
  -- case, so a job a worker has taken (processedOn is set) is looked for in active first.
  if f[4] and inList(KEYS[10]) then state = 'active'
  elseif inList(KEYS[8]) then state = paused and 'paused' or 'waiting'
  elseif inList(KEYS[9]) then state = 'paused'
  elseif not f[4] and inList(KEYS[10]) then state = 'active'
  elseif unresolved then state = 'list-unresolved'
  else state = 'stray'
  end
end

local data = f[2]
if data and #data > maxData then data = string.sub(data, 1, maxData) end
return {state, lockTtl, f[1] or '', data or '', f[3] or '', f[4] or '', f[5] or '',
        f[6] or '', f[7] or f[8] or ''}
