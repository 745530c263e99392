-- Reclaim: the jobs that entered BullMQ's `prioritized` set since a mark of its priority counter,
-- in one atomic step. A prioritized job's score is priority * 2^32 + (the queue's `pc` counter,
-- INCRed for every job placed in the set: an add, a promotion, a retry, a changePriority). A
-- changePriority writes no event, and it can move a job from ahead of a reader paging through
-- the set to behind it; every such job has a counter above a mark taken before the read, and
-- within one priority the counter orders the scores, so the new ones are the end of each
-- priority's band: one ZRANGEBYSCORE per priority in use, never a walk of the whole set.
-- Not seen: BullMQ's `lifo` re-prioritization (priority * 2^32, no counter).
-- Every key is in KEYS but the job hashes (prefix .. id), which share the queue's prefix and so
-- its hash tag, as BullMQ's own scripts build them.
-- KEYS: 1 the prioritized set, 2 the priority counter `pc`, 3 the queue's meta hash
-- ARGV: 1 job key prefix ("bull:<queue>:"), 2 the mark ("" to take one only), 3 "1" to return
--       each job's payload
-- Returns {the counter now (the next mark), the meta hash's `version` ("" when none), id1, data1,
-- id2, data2, ...}; data is false for an id without a job hash or when payloads were not asked.
local rcall = redis.call
local key = KEYS[1]
local prefix = ARGV[1]
local withData = ARGV[3] == '1'
local band = 0x100000000
-- Scores reach 2^53: written as whole numbers, never in Lua's 14-digit default form.
local function num(x) return string.format('%.0f', x) end
local now = tonumber(rcall('GET', KEYS[2]) or '0')
local out = {num(now), rcall('HGET', KEYS[3], 'version') or ''}
if ARGV[2] == '' then return out end
local mark = tonumber(ARGV[2])
if not mark or now == mark then return out end

local function take(ids)
  for _, id in ipairs(ids) do
    out[#out + 1] = id
    out[#out + 1] = withData and (rcall('HGET', prefix .. id, 'data') or false) or false
  end
end

local low, high = mark % band, now % band
-- A counter below the mark was reset (the queue emptied and begun again): all of it is new.
local everything = now < mark or now - mark >= band
local from = '-inf'
while true do
  local first = rcall('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not first[1] then break end
  local priority = math.floor(tonumber(first[2]) / band)
  local base = priority * band
  if everything then
    take(rcall('ZRANGEBYSCORE', key, num(base), '(' .. num(base + band)))
  elseif low < high then
    take(rcall('ZRANGEBYSCORE', key, '(' .. num(base + low), num(base + high)))
  else
    -- The counter wrapped past 2^32 since the mark.
    take(rcall('ZRANGEBYSCORE', key, '(' .. num(base + low), '(' .. num(base + band)))
    take(rcall('ZRANGEBYSCORE', key, num(base), num(base + high)))
  end
  from = num(base + band)
end
return out
