--[[
  The worker's claim of the next action on its desktop: pops it (popping is what makes the
  channel at-most-once: a crash after the pop loses the request instead of replaying it) and,
  in the same atomic step, checks it against the desktop's lock, so a request queued under a
  lease that has since lapsed, or been taken over, is refused without another round trip.

  An entry is "<epoch>|<request JSON>" (enqueueAction-4.lua). An entry that is a bare JSON
  object carrying its own "epoch" (the format before the epoch was a field of its own) is
  still read.

  KEYS[1] desktop action list    KEYS[2] desktop lock
  Returns {0} when the list is empty,
  {1, request JSON, epoch} when the request's epoch is the lock's: run it,
  {-1, request JSON, epoch, the lock's epoch or 0 when nobody holds it}: refuse it (stale_epoch),
  {-2, entry} when the entry cannot be read (dropped).
]]
-- @include lock
local entry = redis.call('LPOP', KEYS[1])
if not entry then
  return {0}
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
  return {-2, entry}
end
local lockEpoch = parseLock(redis.call('GET', KEYS[2]))
if lockEpoch == epoch then
  return {1, request, epoch}
end
return {-1, request, epoch, lockEpoch or 0}
