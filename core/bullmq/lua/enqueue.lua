-- Reclaim: enqueue a rebuilt job under a custom id, writing what BullMQ's own add of a standard
-- job writes (bullmq 6: addStandardJob + storeJob + addJobInTargetList), so an unmodified
-- BullMQ worker takes it. A retained completed/failed job (or a stray hash) under the same id
-- is removed first, in this same script, since BullMQ would silently ignore the add.
-- KEYS: 1 wait, 2 paused, 3 meta, 4 id counter, 5 completed, 6 failed, 7 delayed,
--       8 prioritized, 9 waiting-children, 10 active, 11 events, 12 marker, 13 job hash,
--       14 the recovery lock's fencing generation counter
-- ARGV: 1 job id, 2 name, 3 data (JSON), 4 opts (JSON), 5 timestamp (ms), 6 the run's generation
-- Returns {"enqueued", replacedState}, {"runnable", state} when the job is already runnable, or
-- {"fenced", current generation} when the run's generation is no longer the current one.
local rcall = redis.call
local id = ARGV[1]
local jobKey = KEYS[13]
local replaced = ''

-- Fencing, in the same atomic step as the write: a run paused past its lock's TTL while a newer
-- run took the lock (INCR) must not enqueue, nor delete and re-add a retained job. A counter
-- that went back (a flushed or replaced Redis) is not current either.
local current = rcall('GET', KEYS[14]) or '0'
if current ~= ARGV[6] then return {'fenced', current} end

if rcall('EXISTS', jobKey) == 1 then
  if rcall('ZSCORE', KEYS[7], id) then return {'runnable', 'delayed'} end
  if rcall('ZSCORE', KEYS[8], id) then return {'runnable', 'prioritized'} end
  if rcall('ZSCORE', KEYS[9], id) then return {'runnable', 'waiting-children'} end
  if rcall('LPOS', KEYS[1], id) then return {'runnable', 'waiting'} end
  if rcall('LPOS', KEYS[2], id) then return {'runnable', 'paused'} end
  if rcall('LPOS', KEYS[10], id) then return {'runnable', 'active'} end
  if rcall('ZREM', KEYS[5], id) == 1 then replaced = 'completed'
  elseif rcall('ZREM', KEYS[6], id) == 1 then replaced = 'failed'
  else replaced = 'stray' end
  rcall('DEL', jobKey, jobKey .. ':logs', jobKey .. ':dependencies', jobKey .. ':processed',
        jobKey .. ':failed', jobKey .. ':unsuccessful', jobKey .. ':lock')
end

rcall('INCR', KEYS[4])
local maxEvents = rcall('HGET', KEYS[3], 'opts.maxLenEvents')
if not maxEvents then
  maxEvents = 10000
  rcall('HSET', KEYS[3], 'opts.maxLenEvents', maxEvents)
end

rcall('HMSET', jobKey, 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4],
      'timestamp', ARGV[5], 'delay', 0, 'priority', 0)
rcall('XADD', KEYS[11], '*', 'event', 'added', 'jobId', id, 'name', ARGV[2])

local meta = rcall('HMGET', KEYS[3], 'paused', 'concurrency')
local pausedOrMaxed = meta[1] ~= false
if not pausedOrMaxed and meta[2] then
  pausedOrMaxed = rcall('LLEN', KEYS[10]) >= tonumber(meta[2])
end
rcall('LPUSH', KEYS[1], id)
if not pausedOrMaxed then
  rcall('ZADD', KEYS[12], 0, '0')
end
rcall('XADD', KEYS[11], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id)
return {'enqueued', replaced}
