-- Reclaim: take the recovery lock and, only if taken, a new fencing generation.
-- Redis Cluster: both keys are in KEYS, and must share a hash tag.
-- KEYS: 1 lock, 2 generation counter
-- ARGV: 1 token, 2 ttl (ms), 3 floor: the highest generation PostgreSQL's fence recorded for this
--       lock key (0 when none is known)
-- Returns {1, generation, raised} when acquired: `raised` is 0, or the counter's value when it
-- was not above the floor (Redis was flushed or replaced) and was raised to floor + 1 here, in
-- the same script, so no other acquirer sees the stale value.
-- Returns {0, holder token, holder pttl, current generation} when held.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local generation = redis.call('INCR', KEYS[2])
  local floor = tonumber(ARGV[3]) or 0
  if generation <= floor then
    redis.call('SET', KEYS[2], floor + 1)
    return {1, floor + 1, generation}
  end
  return {1, generation, 0}
end
return {0, redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1]),
        tonumber(redis.call('GET', KEYS[2]) or '0')}
