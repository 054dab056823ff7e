--[[
  Queues an action on a desktop for the controller that holds the desktop's lock, taking the
  lock when it is free, in one atomic step: no action is ever queued without the lock, and a
  desktop that is not alive never gets a request that would wait for nobody.

  The lock value is "<epoch>|<controller>" with a lease (PX). Taking it is SET NX PX done
  inside this script, so the fencing epoch (INCR) and the lease are set together. The list
  entry is "<epoch>|<request JSON>": the epoch is a field of its own in front of the request,
  which is stored exactly as the caller sent it (never parsed or edited here). The worker's
  claim (claimAction-3.lua) pops the entry and refuses it when its epoch is no longer the lock's.

  An agent's call to a live desktop is counted against its tenant's calls-per-second quota
  (includes/callRate.lua) in the same step, so the quota costs no round trip of its own; a
  call over it is refused before the lock is touched. (A call to a desktop that is gone is not
  counted here: its caller routes it again and counts it then.) A person's call from the
  console is not counted (ARGV[5] = 0).

  KEYS[1] desktop alive key      KEYS[2] desktop action list
  KEYS[3] desktop lock           KEYS[4] desktop epoch counter
  KEYS[5] the tenant's call counter
  ARGV[1] the request, a JSON object (without its epoch)
  ARGV[2] the caller's controller id
  ARGV[3] the lease, ms
  ARGV[4] how long the epoch counter outlives its last use, ms
  ARGV[5] the tenant's calls per window (0: not counted)    ARGV[6] the window, ms
  Returns {1, epoch} when queued, {0} when the desktop is not alive,
  {-1, holder, lease left in ms} when another controller holds the lock,
  {-2, count in the window, ms left in the window} when the tenant is over its call rate.
]]
-- @include lock
-- @include callRate
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0}
end
if tonumber(ARGV[5]) > 0 then
  local rate = countCall(KEYS[5], ARGV[5], ARGV[6])
  if rate[1] == 0 then
    return {-2, rate[2], rate[3]}
  end
end
local epoch, holder = parseLock(redis.call('GET', KEYS[3]))
if epoch then
  if holder ~= ARGV[2] then
    return {-1, holder, redis.call('PTTL', KEYS[3])}
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
else
  epoch = redis.call('INCR', KEYS[4])
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
  redis.call('SET', KEYS[3], epoch .. '|' .. ARGV[2], 'NX', 'PX', ARGV[3])
end
redis.call('RPUSH', KEYS[2], epoch .. '|' .. ARGV[1])
return {1, epoch}
