--[[
  Counts one tool call of a tenant against its calls-per-second quota (includes/callRate.lua),
  for calls that are refused before anything is queued; a queued call is counted by its
  enqueue (enqueueAction-5.lua), in the same round trip.

  KEYS[1] the tenant's call counter
  ARGV[1] the limit per window    ARGV[2] the window, ms
  Returns {1 when within the limit else 0, the count in this window, ms left in the window}.
]]
-- @include callRate
return countCall(KEYS[1], ARGV[1], ARGV[2])
