--[[
  A tenant's tool-call rate: a fixed window, kept in one counter that expires with its window.
  Calls over the limit are counted too (they are refused, not queued), so a client that keeps
  hammering stays refused until a window passes.
  countCall(key, limit, windowMs) returns {1 when within the limit else 0, the count in this
  window, ms left in the window}.
]]
local function countCall(key, limit, windowMs)
  local count = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if count == 1 or left < 0 then
    redis.call('PEXPIRE', key, windowMs)
    left = tonumber(windowMs)
  end
  if count <= tonumber(limit) then
    return {1, count, left}
  end
  return {0, count, left}
end
