--[[
  The worker's claim of the next action on its desktop: pops it (popping is what makes the
  channel at-most-once: a crash after the pop loses the request instead of replaying it) and,
  in the same atomic step, checks it against the desktop's lock, so a request queued under a
  lease that has since lapsed, or been taken over, is refused without another round trip.

  A claim whose answer reaches the worker too late (Redis or the host slow for longer than the
  command deadline) has popped a request the worker never saw; left at that, its caller would
  wait out its whole timeout for an action nobody runs. So each pop is numbered and recorded
  (KEYS[3], "<number>|<entry>"), and the worker sends the number of the last claim it received:
  a recorded pop past that number is handed over again, once, by the next claim, before anything
  new is popped. The request is still run at most once: it is popped once, and the worker takes
  it once.

  An entry is "<epoch>|<request JSON>" (enqueueAction-4.lua). An entry that is a bare JSON
  object carrying its own "epoch" (the format before the epoch was a field of its own) is
  still read.

  KEYS[1] desktop action list    KEYS[2] desktop lock    KEYS[3] the desktop's claim record
  ARGV[1] the number of the last claim the worker received (0: none)
  ARGV[2] how long the claim record is kept, ms
  Returns {0} when there is nothing to claim; otherwise, with the claim's number last:
  {1, request JSON, epoch, number} when the request's epoch is the lock's: run it,
  {-1, request JSON, epoch, the lock's epoch or 0 when nobody holds it, number}: refuse it (stale_epoch),
  {-2, entry, number} when the entry cannot be read (dropped).
]]
-- @include lock
local received = tonumber(ARGV[1])
local number, entry
local record = redis.call('GET', KEYS[3])
if record then
  local bar = string.find(record, '|', 1, true)
  local recorded = tonumber(string.sub(record, 1, bar - 1))
  if recorded > received then
    number, entry = recorded, string.sub(record, bar + 1)
  end
end
if not entry then
  entry = redis.call('LPOP', KEYS[1])
  if not entry then
    return {0}
  end
  number = received + 1
  redis.call('SET', KEYS[3], number .. '|' .. entry, 'PX', ARGV[2])
end
local epoch, request
if string.sub(entry, 1, 1) == '{' then
  local ok, decoded = pcall(cjson.decode, entry)
  if ok and type(decoded) == 'table' then
    epoch = tonumber(decoded['epoch'])
  end
  request = entry
else
  local bar = string.find(entry, '|', 1, true)
  if bar then
    epoch = tonumber(string.sub(entry, 1, bar - 1))
    request = string.sub(entry, bar + 1)
  end
end
if not epoch then
  return {-2, entry, number}
end
local lockEpoch = parseLock(redis.call('GET', KEYS[2]))
if lockEpoch == epoch then
  return {1, request, epoch, number}
end
return {-1, request, epoch, lockEpoch or 0, number}
