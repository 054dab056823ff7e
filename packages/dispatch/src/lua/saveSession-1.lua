--[[
  A worker saves what one call changed on its session (the tool state, when it changed, and
  when the session was last used) — only while the session still holds that worker's desktop.
  A session ended (or moved to another desktop) while the call ran is not written again: a
  plain HSET would bring an ended session's key back as a stray hash.
  KEYS[1] the session's hash
  ARGV[1] the desktop id that ran the call
  ARGV[2] lastUsedAt, ms
  ARGV[3] the new state as JSON, or '' when it did not change
  Returns 1 when saved, 0 when the session is gone or holds another desktop.
]]
if redis.call('HGET', KEYS[1], 'desktopId') ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[2])
else
  redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[2], 'state', ARGV[3])
end
return 1
