--[[
  Lets the controller holding a desktop lock give it up before its lease ends.
  KEYS[1] desktop lock    ARGV[1] the caller's controller id
  Returns 1 when released, 0 when nobody held it, -1 when another controller holds it.
]]
-- @include lock
local epoch, holder = parseLock(redis.call('GET', KEYS[1]))
if not epoch then
  return 0
end
if holder ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
return 1
