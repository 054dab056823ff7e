--[[
  Extends a desktop lock's lease, but only for the holder that took it at this epoch.
  KEYS[1] desktop lock    ARGV[1] "<epoch>|<controller>"    ARGV[2] the lease, ms
  Returns 1 when renewed, 0 when the lock is gone or belongs to another epoch.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
