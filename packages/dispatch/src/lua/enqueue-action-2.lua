--[[
  Pushes an action request onto a desktop's queue, but only while the desktop is alive, so a
  request never waits for a worker that is gone.
  KEYS[1] desktop alive key
  KEYS[2] desktop action list
  ARGV[1] the request, JSON
  Returns 1 when queued, 0 when the desktop is not alive.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
