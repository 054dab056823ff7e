--[[
  The desktop lock's value is "<epoch>|<controller>" (desktop-lock.ts reads it the same way).
  parseLock(value) returns the epoch (a number) and the controller, or nil when the value is
  absent (GET of a missing key gives false).
]]
local function parseLock(value)
  if not value then
    return nil
  end
  local bar = string.find(value, '|', 1, true)
  return tonumber(string.sub(value, 1, bar - 1)), string.sub(value, bar + 1)
end
