--[[
  A session's desktop is gone (its worker died or drained): the session stops pointing at it,
  keeping its state (grants, coordinate mode), and is marked so its next desktop tells the
  agent the screen was reset. Only when the session still points at that desktop.
  KEYS[1] the session's hash
  ARGV[1] the desktop id that is gone
  ARGV[2] why, in a few words
  Returns 1 when detached, 0 when the session points elsewhere (or is gone).
]]
if redis.call('HGET', KEYS[1], 'desktopId') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'desktopId', '', 'lostDesktop', ARGV[2])
return 1
