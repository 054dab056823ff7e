--[[
  Takes a desktop's lock for a controller about to end the desktop's session, without queueing
  anything: a free lock is taken (with a new fencing epoch, so nothing another controller
  queued under an older lease can still run), the caller's own lock is kept, and a lock
  another controller holds is left alone.

  KEYS[1] desktop lock    KEYS[2] desktop epoch counter
  ARGV[1] the caller's controller id    ARGV[2] the lease, ms
  ARGV[3] how long the epoch counter outlives its last use, ms
  Returns {1, epoch} when the caller holds the lock, {-1, holder, lease left in ms} otherwise.
]]
-- @include lock
local heldEpoch, holder = parseLock(redis.call('GET', KEYS[1]))
if heldEpoch then
  if holder ~= ARGV[1] then
    return {-1, holder, redis.call('PTTL', KEYS[1])}
  end
  return {1, heldEpoch}
end
local epoch = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], epoch .. '|' .. ARGV[1], 'PX', ARGV[2])
return {1, epoch}
