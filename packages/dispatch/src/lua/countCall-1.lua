--[[
  Counts one tool call of a tenant against its calls-per-second quota: a fixed one-second
  window, kept in one counter that expires with its window. Calls over the limit are counted
  too (they are refused, not queued), so a client that keeps hammering stays refused until a
  window passes.

  KEYS[1] the tenant's call counter
  ARGV[1] the limit per window    ARGV[2] the window, ms
  Returns {1 when within the limit else 0, the count in this window, ms left in the window}.
]]
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if count == 1 or left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
if count <= tonumber(ARGV[1]) then
  return {1, count, left}
end
return {0, count, left}
