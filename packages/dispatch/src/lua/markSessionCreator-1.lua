--[[
  Records which API key a session was started by, once, and only while the session exists
  (a session ended in the meantime must not come back as a hash holding nothing else).

  KEYS[1] the session's hash    ARGV[1] the key id
  Returns 1 when recorded, 0 when the session is gone or already has a creator.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
return redis.call('HSETNX', KEYS[1], 'createdBy', ARGV[1])
