--[[
  Appends one tool call to a session's audit stream and tells the tenant's console that the
  session changed: one command per call instead of a five-command transaction (MULTI, XADD,
  EXPIRE, PUBLISH, EXEC), as atomic.

  KEYS[1] the session's audit stream
  ARGV[1] the stream's length limit (exact trim)    ARGV[2] its expiry, seconds (pushed out)
  ARGV[3] the console channel    ARGV[4] the console message
  ARGV[5..] the entry's field, value pairs
  Returns the entry's stream id.
]]
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return id
