-- Reclaim: take the recovery lock and, only if taken, a new fencing generation.
-- KEYS: 1 lock, 2 generation counter   ARGV: 1 token, 2 ttl (ms)
-- Returns {1, generation} when acquired, {0, holder token, holder pttl, current generation} when held.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('INCR', KEYS[2])}
end
return {0, redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1]),
        tonumber(redis.call('GET', KEYS[2]) or '0')}
