--[[
  Extends a desktop lock's lease, but only for the holder that took it at this epoch.
  KEYS[1] desktop lock    ARGV[1] the epoch    ARGV[2] the controller id    ARGV[3] the lease, ms
  Returns 1 when renewed, 0 when the lock is gone or belongs to another epoch or controller.
]]
-- @include lock
local epoch, holder = parseLock(redis.call('GET', KEYS[1]))
if epoch == tonumber(ARGV[1]) and holder == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
