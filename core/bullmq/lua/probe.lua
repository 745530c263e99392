-- Reclaim: where are these BullMQ jobs of one queue right now? One call looks up a batch of
-- job ids and every check of the batch sees the same moment.
-- Redis Cluster: every key is in KEYS but the job hashes and their locks (prefix .. id and
-- prefix .. id .. ':lock'), which share the queue's prefix and so its hash tag, as BullMQ's own
-- scripts build them; the caller refuses a call whose KEYS span slots before sending it.
-- KEYS: 1 completed, 2 failed, 3 delayed, 4 prioritized, 5 waiting-children, 6 wait,
--       7 paused (legacy list), 8 active, 9 meta
-- ARGV: 1 the queue's key prefix ("bull:<queue>:"; a job's hash is prefix..id, as BullMQ's own
--       scripts build it), 2 how many list elements the batch may walk per list,
--       3 max payload bytes returned per job (-1: the whole payload), 4.. job ids
-- Returns nine values per id, in order: state, lockPttl, name, data, timestamp, processedOn,
-- finishedOn, failedReason, attempts. state is a BullMQ state, "missing" (no job hash), "stray"
-- (a hash in no state structure), "list-unresolved" (a list was longer than the walk limit:
-- the caller reads it once instead) or "error" (this id could not be looked at: the third value
-- says why). One bad key fails the ids that touch it, never its neighbours in the batch.
-- After the last id's values: the meta hash's `version` field ("bullmq:5.81.5"), "" when it has
-- none, false when the meta hash could not be read, so the caller knows which layout (which
-- BullMQ family) this same moment was read from and refuses one it does not know.
local prefix = ARGV[1]
local limit = tonumber(ARGV[2])
local maxData = tonumber(ARGV[3])

-- A server error raises a Lua error (a table with its message in `err`): the pcalls below catch
-- it for the ids it concerns.
local rcall = redis.call

local out = {}
local okVersion, version = pcall(rcall, 'HGET', KEYS[9], 'version')
out[(#ARGV - 3) * 9 + 1] = okVersion and (version or '') or false
-- Ids in no sorted set, each with the positions of its state in `out` (an id asked twice in
-- one batch gets the same answer twice).
local inLists = {}
local pendingCount = 0

local function failed(positions, problem)
  local message = type(problem) == 'table' and problem.err or tostring(problem)
  for _, p in ipairs(positions) do
    out[p] = 'error'
    out[p + 1] = -2
    out[p + 2] = message
    for k = 3, 8 do out[p + k] = '' end
  end
end

-- The sorted sets, in the order a job that has none of the hints below is looked for.
local zsets = {{KEYS[3], 'delayed'}, {KEYS[4], 'prioritized'}, {KEYS[5], 'waiting-children'},
               {KEYS[1], 'completed'}, {KEYS[2], 'failed'}}

local function inSortedSet(id, only)
  for _, z in ipairs(zsets) do
    if (not only or only[z[2]]) and rcall('ZSCORE', z[1], id) then return z[2] end
  end
  return nil
end

-- Where the job's own fields say it most likely is: that structure is asked first. A hint only
-- orders the checks (every structure is still asked when it misses), so a stale field costs a
-- few calls, never a wrong answer.
local function likelySets(f)
  if f[5] then
    return f[6] and {failed = true, completed = true} or {completed = true, failed = true}
  end
  if (tonumber(f[9]) or 0) > 0 then return {delayed = true} end
  if (tonumber(f[10]) or 0) > 0 then return {prioritized = true} end
  -- Most likely in a list; the parents of flows wait in a sorted set no field points to.
  return {['waiting-children'] = true}
end

local function lookUp(id, base)
  local jobKey = prefix .. id
  local lockTtl = rcall('PTTL', jobKey .. ':lock')
  local f = rcall('HMGET', jobKey, 'name', 'data', 'timestamp', 'processedOn', 'finishedOn',
                  'failedReason', 'atm', 'attemptsMade', 'delay', 'priority')
  if not f[1] and not f[3] and rcall('EXISTS', jobKey) == 0 then
    out[base + 1] = 'missing'
    out[base + 2] = lockTtl
    for k = 3, 9 do out[base + k] = '' end
    return
  end
  local state = inSortedSet(id, likelySets(f))
  if not state then
    -- In a list, probably: the lists are walked once for the whole batch below.
    if inLists[id] then
      table.insert(inLists[id], base + 1)
    else
      inLists[id] = {base + 1}
      pendingCount = pendingCount + 1
    end
    state = 'stray'
  end
  local data = f[2] or ''
  if maxData >= 0 and #data > maxData then data = string.sub(data, 1, maxData) end
  out[base + 1] = state
  out[base + 2] = lockTtl
  out[base + 3] = f[1] or ''
  out[base + 4] = data
  out[base + 5] = f[3] or ''
  out[base + 6] = f[4] or ''
  out[base + 7] = f[5] or ''
  out[base + 8] = f[6] or ''
  out[base + 9] = f[7] or f[8] or ''
end

for i = 4, #ARGV do
  local base = (i - 4) * 9
  local ok, message = pcall(lookUp, ARGV[i], base)
  if not ok then failed({base + 1}, message) end
end

if pendingCount == 0 then return out end

-- The rest sit in a list, or nowhere. BullMQ pushes new jobs at the head and takes from the
-- tail, so the old jobs a recovery asks about sit near the tail: walk from there, at most
-- `limit` elements per list. A job sits in one list at most and the batch sees one moment, so
-- the order of the lists changes the cost, never the answer.
local function findInLists()
  local paused = rcall('HEXISTS', KEYS[9], 'paused') == 1
  local unresolved = false
  local lists = {{KEYS[8], 'active'}, {KEYS[6], paused and 'paused' or 'waiting'}, {KEYS[7], 'paused'}}
  -- A few ids are cheapest with LPOS (a C loop per id); many share one walk through the list
  -- (one pass, each element checked against all of them).
  local fewIds = 8
  for _, list in ipairs(lists) do
    if pendingCount == 0 then break end
    local key, state = list[1], list[2]
    local len = rcall('LLEN', key)
    if len > 0 and limit > 0 then
      if pendingCount <= fewIds then
        for id, at in pairs(inLists) do
          if rcall('LPOS', key, id, 'RANK', -1, 'MAXLEN', limit) then
            for _, p in ipairs(at) do out[p] = state end
            inLists[id] = nil
            pendingCount = pendingCount - 1
          end
        end
      else
        local walked = 0
        local chunk = 1000
        while walked < len and walked < limit and pendingCount > 0 do
          local n = math.min(chunk, limit - walked)
          local elements = rcall('LRANGE', key, -(walked + n), -(walked + 1))
          for _, id in ipairs(elements) do
            local at = inLists[id]
            if at then
              for _, p in ipairs(at) do out[p] = state end
              inLists[id] = nil
              pendingCount = pendingCount - 1
            end
          end
          walked = walked + n
        end
      end
    end
    if len > limit then unresolved = true end
  end
  -- Not in a list (or not within reach): ask every sorted set before calling it stray.
  for id, at in pairs(inLists) do
    local state = inSortedSet(id, nil)
    if state then
      for _, p in ipairs(at) do out[p] = state end
      inLists[id] = nil
    end
  end
  return unresolved
end

local ok, result = pcall(findInLists)
if not ok then
  -- A list (or the meta hash) could not be read: the ids still looked for are unknown.
  for _, at in pairs(inLists) do failed(at, result) end
  return out
end
if result then
  for _, at in pairs(inLists) do
    for _, p in ipairs(at) do out[p] = 'list-unresolved' end
  end
end
return out
