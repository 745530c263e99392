-- Reclaim: which jobs of a queue changed state since a mark, from the queue's own event log
-- (BullMQ's events stream: every move — active, delayed, waiting, completed, ... — adds an entry
-- naming the job). A scan reads a queue that moves; a job that moved during it may have been
-- read nowhere, so the scan asks for the jobs that moved and looks each one up by id.
-- Redis Cluster: the one key it touches is in KEYS.
-- KEYS: 1 the queue's events stream
-- ARGV: 1 the mark returned earlier ("" to take a mark only), 2 the most entries to read,
--       3 "redis6" to read the log only as a Redis 6.2 server allows (tests: Debian packages no
--       6.2 server, and this path must be proven on the server at hand)
-- Returns {mark, complete (0/1), paused or resumed (0/1), job id, job id, ...}: mark is opaque
-- (where the log is now); complete is 0 when entries after the given mark may have been trimmed
-- away (or there were more than asked for), so the moved jobs cannot all be named; the third is
-- 1 when the queue was paused or resumed after the mark (those events name no job, and BullMQ
-- before 6 renames `wait` to `paused` and back under a reader's feet).
local rcall = redis.call
local key = KEYS[1]

local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function older(a, b)
  local am, as = parse(a)
  local bm, bs = parse(b)
  return am < bm or (am == bm and as < bs)
end

-- Redis 7 counts every entry ever added to a stream: a mark is "<last id added>|<that count>",
-- and entries after it were trimmed away exactly when fewer remain after the id than were added
-- since (this holds for a mark taken on an empty or missing log too). Trimming does not move
-- `max-deleted-entry-id`, so that field cannot tell. Older servers: the mark is the newest
-- entry, and a mark older than the oldest entry left counts as trimmed.
local lastAdded, added
local asRedis6 = ARGV[3] == 'redis6'
local info = redis.pcall('XINFO', 'STREAM', key)
if asRedis6 then
  -- Redis 6.2 has no entries-added: the older check below.
elseif type(info) == 'table' and not info.err then
  for i = 1, #info - 1, 2 do
    if info[i] == 'last-generated-id' then lastAdded = info[i + 1] end
    if info[i] == 'entries-added' then added = tonumber(info[i + 1]) end
  end
elseif rcall('EXISTS', key) == 0 and redis.REDIS_VERSION_NUM and redis.REDIS_VERSION_NUM >= 0x070000 then
  lastAdded, added = '0-0', 0
end
local mark
if lastAdded and added then
  mark = lastAdded .. '|' .. added
else
  local newest = rcall('XREVRANGE', key, '+', '-', 'COUNT', 1)
  mark = newest[1] and newest[1][1] or '0-0'
end
local since = ARGV[1]
if since == '' or since == mark then return {mark, 1, 0} end

local sinceId, sinceAdded = string.match(since, '^([%d%-]+)|(%d+)$')
if not sinceId then sinceId = since end
local limit = tonumber(ARGV[2])
local entries = rcall('XRANGE', key, '(' .. sinceId, '+', 'COUNT', limit + 1)
local complete = 1
if #entries > limit then
  complete = 0
elseif sinceAdded and added then
  -- Fewer left than were added (or a log replaced since): some were trimmed.
  if added < tonumber(sinceAdded) or #entries < added - tonumber(sinceAdded) then complete = 0 end
else
  local oldest = rcall('XRANGE', key, '-', '+', 'COUNT', 1)
  if sinceId == '0-0' then
    -- The mark was taken on an empty or missing log, and this server does not count what was
    -- added since: whether any of it was trimmed away cannot be told once anything is there.
    if oldest[1] then complete = 0 end
  elseif not oldest[1] or older(sinceId, oldest[1][1]) then
    -- The mark itself is gone: what came right after it may be gone too.
    complete = 0
  end
end
local out = {mark, complete, 0}
local seen = {}
for i = 1, math.min(#entries, limit) do
  local fields = entries[i][2]
  for f = 1, #fields - 1, 2 do
    if fields[f] == 'jobId' then
      local id = fields[f + 1]
      if not seen[id] then
        seen[id] = true
        out[#out + 1] = id
      end
      break
    elseif fields[f] == 'event' and (fields[f + 1] == 'paused' or fields[f + 1] == 'resumed') then
      out[3] = 1
    end
  end
end
return out
