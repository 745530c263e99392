-- Reclaim: enqueue a rebuilt job under a custom id, writing what the queue's own BullMQ release
-- writes for an add of that job (addStandardJob / addPrioritizedJob with storeJob, per family:
-- see core/bullmq/bullmqlayout.h), so an unmodified worker of that release, already blocked
-- waiting, wakes and takes it. A retained completed/failed job (or a stray hash) under the same
-- id is removed first, in this same script, since BullMQ would silently ignore the add.
-- Redis Cluster: every key is in KEYS but the job hash's own sub-keys (jobKey .. ':logs' and the
-- like), which extend KEYS[13] and so share its hash tag. KEYS[14], the fencing generation, is
-- the recovery lock's: in a cluster it must share the queue's slot too (#32 step 3), and until
-- then the client refuses the call as cross-slot before sending it, rather than write unfenced.
-- KEYS: 1 wait, 2 paused, 3 meta, 4 id counter, 5 completed, 6 failed, 7 delayed,
--       8 prioritized, 9 waiting-children, 10 active, 11 events, 12 marker, 13 job hash,
--       14 the recovery lock's fencing generation counter, 15 pc (priority counter)
-- ARGV: 1 job id, 2 name, 3 data (JSON), 4 timestamp (ms), 5 the run's generation,
--       6 the family to write ("4", "5", "6"), 7 the meta `version` that family was read from,
--       8 the domain's job options (JSON object, or empty): attempts, backoff, priority,
--         removeOnComplete, removeOnFail, for a job no retained one carries options for
-- Returns {"enqueued", replacedState, opts}, {"runnable", state} when the job is already
-- runnable, {"fenced", current generation} when the run's generation is no longer the current
-- one, or {"layout-changed", version} when the queue's meta no longer says ARGV[7].
local rcall = redis.call
local id = ARGV[1]
local jobKey = KEYS[13]
local family = ARGV[6]
local replaced = ''

-- Fencing, in the same atomic step as the write: a run paused past its lock's TTL while a newer
-- run took the lock (INCR) must not enqueue, nor delete and re-add a retained job. A counter
-- that went back (a flushed or replaced Redis) is not current either.
local current = rcall('GET', KEYS[14]) or '0'
if current ~= ARGV[5] then return {'fenced', current} end

-- The layout the caller chose to write must still be the queue's (an upgrade in between).
local version = rcall('HGET', KEYS[3], 'version') or ''
if version ~= ARGV[7] then return {'layout-changed', version} end

-- Everything is read and checked before the first write: a Redis script is not rolled back,
-- so an error half-way (a meta field that is not a number, say) must not leave a retained job
-- deleted or a stray job hash behind.

-- The queue's settings, as BullMQ's own scripts read them.
local meta = rcall('HMGET', KEYS[3], 'paused', 'concurrency', 'opts.maxLenEvents')
local paused = meta[1] ~= false
local concurrency = nil
if meta[2] then
  concurrency = tonumber(meta[2])
  if not concurrency then
    return redis.error_reply('ERR queue meta field concurrency is not a number: ' .. meta[2])
  end
end
local maxEvents = 10000
if meta[3] then
  maxEvents = tonumber(meta[3])
  if not maxEvents then
    return redis.error_reply('ERR queue meta field opts.maxLenEvents is not a number: ' .. meta[3])
  end
end

-- The options an add of this job would store: the library's defaults for a plain add, the
-- domain's job options (the application's retry policy) over them, and the retained job's own
-- retry, priority and retention options over those: that job was added by the application
-- itself. Its delay is not carried: a requeue runs now.
local opts = {jobId = id, attempts = 0}
if family == '4' then opts.delay = 0 end
local carried = {'attempts', 'backoff', 'priority', 'removeOnComplete', 'removeOnFail'}
if ARGV[8] and ARGV[8] ~= '' then
  local ok, configured = pcall(cjson.decode, ARGV[8])
  if not ok or type(configured) ~= 'table' then
    return redis.error_reply('ERR the job options are not a JSON object: ' .. ARGV[8])
  end
  for _, k in ipairs(carried) do
    if configured[k] ~= nil then opts[k] = configured[k] end
  end
end

local retained = rcall('EXISTS', jobKey) == 1
if retained then
  if rcall('ZSCORE', KEYS[7], id) then return {'runnable', 'delayed'} end
  if rcall('ZSCORE', KEYS[8], id) then return {'runnable', 'prioritized'} end
  if rcall('ZSCORE', KEYS[9], id) then return {'runnable', 'waiting-children'} end
  if rcall('LPOS', KEYS[1], id) then return {'runnable', 'waiting'} end
  if rcall('LPOS', KEYS[2], id) then return {'runnable', 'paused'} end
  if rcall('LPOS', KEYS[10], id) then return {'runnable', 'active'} end
  local ok, old = pcall(cjson.decode, rcall('HGET', jobKey, 'opts') or '')
  if ok and type(old) == 'table' then
    for _, k in ipairs(carried) do
      if old[k] ~= nil then opts[k] = old[k] end
    end
  end
end
local priority = tonumber(opts.priority) or 0
local encoded = cjson.encode(opts)
-- Paused, or as many active jobs as the queue's global concurrency: no worker may take it now,
-- so no marker (4.x knows neither the marker nor the concurrency limit).
local pausedOrMaxed = paused
if not paused and concurrency then
  pausedOrMaxed = rcall('LLEN', KEYS[10]) >= concurrency
end

-- The writes.
if not meta[3] then rcall('HSET', KEYS[3], 'opts.maxLenEvents', maxEvents) end
if retained then
  local prev = 'unknown'
  if rcall('ZREM', KEYS[5], id) == 1 then replaced = 'completed'
  elseif rcall('ZREM', KEYS[6], id) == 1 then replaced = 'failed'
  else replaced = 'stray' end
  if replaced ~= 'stray' then prev = replaced end
  rcall('DEL', jobKey, jobKey .. ':logs', jobKey .. ':dependencies', jobKey .. ':processed',
        jobKey .. ':failed', jobKey .. ':unsuccessful', jobKey .. ':lock')
  -- As BullMQ's own removal says it, so QueueEvents and dashboards see the old job go.
  rcall('XADD', KEYS[11], 'MAXLEN', '~', maxEvents, '*', 'event', 'removed', 'jobId', id,
        'prev', prev)
end

rcall('INCR', KEYS[4])
rcall('HMSET', jobKey, 'name', ARGV[2], 'data', ARGV[3], 'opts', encoded,
      'timestamp', ARGV[4], 'delay', 0, 'priority', priority)
rcall('XADD', KEYS[11], '*', 'event', 'added', 'jobId', id, 'name', ARGV[2])

if priority > 0 then
  -- Lower priority numbers first, and first come first served within one priority.
  local score = priority * 0x100000000 + rcall('INCR', KEYS[15]) % 0x100000000
  rcall('ZADD', KEYS[8], score, id)
  if family == '4' then
    -- 4.x workers block on the wait list: an empty one gets an entry that wakes them.
    if not paused and rcall('LLEN', KEYS[1]) == 0 then rcall('LPUSH', KEYS[1], '0:0') end
  elseif not pausedOrMaxed then
    rcall('ZADD', KEYS[12], 0, '0')
  end
else
  -- 4.x and 5.x keep a paused queue's jobs in the `paused` list, 6.x in `wait`.
  local target = KEYS[1]
  if paused and family ~= '6' then target = KEYS[2] end
  rcall('LPUSH', target, id)
  if family ~= '4' and not pausedOrMaxed then rcall('ZADD', KEYS[12], 0, '0') end
end
rcall('XADD', KEYS[11], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id)
return {'enqueued', replaced, encoded}
