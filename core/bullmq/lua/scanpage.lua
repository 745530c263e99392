-- Reclaim: one page of a BullMQ state, each job id with its payload, in one round trip.
-- KEYS: 1 the state's list or sorted set, 2 the queue's meta hash
-- ARGV: 1 "list" or "zset", 2 first index, 3 last index, 4 job key prefix ("bull:<queue>:")
-- Returns {size of the state, queue paused (0/1), id1, data1, id2, data2, ...}; a job without a
-- hash has data false. BullMQ 6 keeps a paused queue's jobs in wait, with meta.paused set.
local rcall = redis.call
local ids, size
if ARGV[1] == 'list' then
  ids = rcall('LRANGE', KEYS[1], ARGV[2], ARGV[3])
  size = rcall('LLEN', KEYS[1])
else
  ids = rcall('ZRANGE', KEYS[1], ARGV[2], ARGV[3])
  size = rcall('ZCARD', KEYS[1])
end
local out = {size, redis.call('HEXISTS', KEYS[2], 'paused')}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = rcall('HGET', ARGV[4] .. id, 'data') or false
end
return out
