-- Reclaim: raise a copy of the recovery lock's fencing generation, kept in the slot of a queue
-- on a Redis Cluster so that queue's fenced enqueue can compare it in one slot. Only ever
-- raised: a copy already above ARGV[1] belongs to a newer run, and stays.
-- Redis Cluster: the one key it touches is in KEYS.
-- KEYS: 1 the copy  ARGV: 1 the generation this run took
-- Returns the copy's value after the call: ARGV[1], or the newer generation that was there.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local mine = tonumber(ARGV[1])
if mine > current then
  redis.call('SET', KEYS[1], ARGV[1])
  return mine
end
return current
