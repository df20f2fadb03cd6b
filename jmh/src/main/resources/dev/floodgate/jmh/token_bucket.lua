-- A token bucket in Redis, as a service-side limiter would run it: the server's clock, one hash per key.
-- KEYS[1] the bucket; ARGV[1] capacity; ARGV[2] refill per microsecond. Returns 1 when admitted, 0 when not.
local capacity = tonumber(ARGV[1])
local per_us = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_us)
local admitted = 0
if tokens >= 1 then
  tokens = tokens - 1
  admitted = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
return admitted
