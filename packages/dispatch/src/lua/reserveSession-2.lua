--[[
  Makes room for a new session of a tenant within its quota of concurrent sessions, before a
  desktop is allocated for it. A session in use is a member of the tenant's session set; one
  being started holds a reservation until its allocation ends (or the reservation expires), so
  concurrent first calls of several new sessions cannot together overshoot the quota.

  KEYS[1] the tenant's session set    KEYS[2] the tenant's reservations (sorted set: name → expiry, ms)
  ARGV[1] the session name    ARGV[2] the quota    ARGV[3] now, ms    ARGV[4] how long a reservation lasts, ms
  Returns {1, sessions in use} when the session exists or room was reserved for it,
  {0, sessions in use} when the tenant is at its quota.
]]
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  return {1, redis.call('SCARD', KEYS[1])}
end
local inUse = redis.call('SCARD', KEYS[1])
local mine = false
for _, name in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if name == ARGV[1] then
    mine = true
  elseif redis.call('SISMEMBER', KEYS[1], name) == 0 then
    inUse = inUse + 1
  end
end
if not mine and inUse >= tonumber(ARGV[2]) then
  return {0, inUse}
end
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, inUse}
