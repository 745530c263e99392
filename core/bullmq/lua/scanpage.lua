-- Reclaim: the next page of a BullMQ state that moves while it is read, in one round trip.
-- A page does not start at an offset (a worker taking from a list, a promotion out of a sorted
-- set or an LREM in `active` shifts every later offset and a job would be skipped): it starts
-- next to the anchors, the ids the last page read furthest, wherever they are now.
-- Lists are read from the tail to the head: BullMQ pushes new jobs at the head (they are still
-- ahead of the reader) and workers take from the tail (behind it). Sorted sets are read by rank,
-- lowest score first; promotions and workers take the lowest scores (behind the reader).
-- When every anchor has left the state, what was read before them has left too (BullMQ takes
-- from the end the reader started at), so the page starts again from the start and says so.
-- An anchor that left and came back (a retry pushes a job back at the head of `wait`, a backoff
-- puts it back in `delayed` with a later score) is no proof of where the reader was: in a sorted
-- set an anchor counts only while its score is the one it was read with; in a list the page names
-- the anchor it continued from, and the caller, which follows the queue's event log, starts the
-- state again when that job moved after it was read (scripts cannot see the log's future).
-- Every key is in KEYS but the job hashes (prefix .. id), which share the queue's prefix and so
-- its hash tag, as BullMQ's own scripts build them.
-- KEYS: 1 the state's list or sorted set, 2 the queue's meta hash
-- ARGV: 1 "list" or "zset", 2 page size, 3 job key prefix ("bull:<queue>:"), 4 "1" to return
--       each job's payload, "0" for ids only, 5 where the first anchor was last time (a list's
--       negative index, a set's rank), 6 how many anchors (n), 7..6+n the anchors, furthest read
--       first (none: the start), then for a sorted set the n scores they were read with
-- Returns {size of the state, queue paused (0/1), restarted (0/1), done (0/1), position of the
-- furthest id of this page, the meta hash's `version` field ("" when none: the caller checks
-- the layout it read is one it knows), the anchor this page continued from ("" from the start),
-- id1, data1, score1, id2, data2, score2, ...} in reading order; data is false for an id without
-- a job hash, and for every id when payloads were not asked for; score is "" in a list.
local rcall = redis.call
local key = KEYS[1]
local count = tonumber(ARGV[2])
local prefix = ARGV[3]
local withData = ARGV[4] == '1'
local expected = tonumber(ARGV[5])
local anchors = tonumber(ARGV[6]) or 0
local firstAnchor = 7
local lastAnchor = firstAnchor + anchors - 1
local restarted = 0
local continued = ''
local ids = {}
local scores = {}
local size, done, position

if ARGV[1] == 'list' then
  size = rcall('LLEN', key)
  -- `from`: the negative index of the furthest element read; 0 before the tail.
  local from = 0
  if anchors > 0 then
    from = nil
    if expected < 0 and rcall('LINDEX', key, expected) == ARGV[firstAnchor] then
      from = expected
      continued = ARGV[firstAnchor]
    else
      for i = firstAnchor, lastAnchor do
        local at = rcall('LPOS', key, ARGV[i], 'RANK', -1)
        if at then
          from = at - size
          continued = ARGV[i]
          break
        end
      end
    end
    if not from then
      from = 0
      restarted = 1
    end
  end
  local low = math.max(from - count, -size)
  if low <= from - 1 then
    local range = rcall('LRANGE', key, low, from - 1)
    for i = #range, 1, -1 do ids[#ids + 1] = range[i] end
  end
  position = low
  done = low <= -size
else
  size = rcall('ZCARD', key)
  local start = 0
  if anchors > 0 then
    start = nil
    local function inPlace(i)
      return rcall('ZSCORE', key, ARGV[i]) == ARGV[i + anchors]
    end
    if expected >= 0 and rcall('ZRANGE', key, expected, expected)[1] == ARGV[firstAnchor] and
        inPlace(firstAnchor) then
      start = expected + 1
      continued = ARGV[firstAnchor]
    else
      for i = firstAnchor, lastAnchor do
        if inPlace(i) then
          start = rcall('ZRANK', key, ARGV[i]) + 1
          continued = ARGV[i]
          break
        end
      end
    end
    if not start then
      start = 0
      restarted = 1
    end
  end
  local range = rcall('ZRANGE', key, start, start + count - 1, 'WITHSCORES')
  for i = 1, #range - 1, 2 do
    ids[#ids + 1] = range[i]
    scores[#ids] = range[i + 1]
  end
  position = start + #ids - 1
  done = start + #ids >= size
end

local out = {size, rcall('HEXISTS', KEYS[2], 'paused'), restarted, done and 1 or 0, position,
             rcall('HGET', KEYS[2], 'version') or '', continued}
for i, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = withData and (rcall('HGET', prefix .. id, 'data') or false) or false
  out[#out + 1] = scores[i] or ''
end
return out
