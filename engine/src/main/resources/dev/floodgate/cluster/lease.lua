-- Floodgate's cluster quota: one token bucket per (identifier, action), leased out to the nodes in batches.
--
-- KEYS[1]  the bucket (a hash; absent means full)
-- ARGV     op ('L' lease, 'R' refund), node, seq, amount, limit, window_ms
-- returns  {code, tokens, wait_ms, now_ms, asked}
--            code 0: applied; tokens granted (lease, 0..amount) or given back (refund)
--            code 1: replayed; this node's seq was already applied: its remembered answer, the bucket untouched. A
--                    lease retried with another amount is replayed too: a seq is one grant, whatever its retries
--                    ask (the caller commits it and asks again under a new seq for what it still needs)
--                    A refund under the seq of this node's lease gives that lease up: its grant goes back to the
--                    bucket with the refund (the node moves its seq past a number before it refunds under it, so a
--                    grant it has not committed by then it never will: the lease's answer was lost to its bound)
--            code 2: stale; an older seq, a lease under a refund's seq, or a refund's seq with another amount: nothing
--                    changed, tokens 0
--          wait_ms: after a lease, the time until the bucket holds a whole token again (0 while it does)
--            asked: the amount of the request the answer is for: this call's, or the remembered request's on a replay
--
-- Exact in integers: every elapsed ms adds `limit` credits, a token costs `window_ms` credits, the bucket holds at
-- most limit * window_ms credits. The caller keeps limit * window_ms <= 2^53, so every value below is an integer a
-- Lua number (a double) holds exactly: sums are compared against what is missing before they are added, and every
-- product is bounded by the capacity first.
-- Time is the server's (TIME), so the nodes' clocks do not matter; it never runs backwards for a bucket.
-- Fields: c credits, t time of c (ms), l and w the limit and window c was counted for, n:<node> that node's last
-- "seq op amount tokens wait time" (time: the server's ms of that call; absent in an older engine's records), p the
-- cursor of the sweep that drops other nodes' records once they are as old as an idle bucket.

local key = KEYS[1]
local op = ARGV[1]
local node = ARGV[2]
local seq = tonumber(ARGV[3])
local amount = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local window = tonumber(ARGV[6])

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function int(x)
    return string.format('%.0f', x)
end

-- floor(a / b) for integers up to 2^53, corrected for the rounding of the division
local function div(a, b)
    local q = math.floor(a / b)
    if q * b > a then
        q = q - 1
    elseif (q + 1) * b <= a then
        q = q + 1
    end
    return q
end

local field = 'n:' .. node
local state = redis.call('HMGET', key, 'c', 't', 'l', 'w', field, 'p')

local record = state[5]
-- a lease's grant its node gave up (below): it goes back to the bucket with the refund
local unclaimed = 0
if record then
    local rseq, rop, ramount, rtokens, rwait = string.match(record, '^(%d+) (%a) (%d+) (%d+) (%d+)')
    rseq = tonumber(rseq)
    if seq < rseq then
        return {2, 0, 0, now, amount}
    end
    if seq == rseq then
        -- A lease that timed out may have been applied; its retry may ask another amount (a check's cost above the
        -- lease size reuses the refill's seq). Answering it stale lost the grant to the node and refused the check
        -- although the bucket held tokens (found by review): the seq's one grant is replayed instead.
        if rop == op and (op == 'L' or tonumber(ramount) == amount) then
            return {1, tonumber(rtokens), tonumber(rwait), now, tonumber(ramount)}
        end
        -- A node refunds under a seq only once it has moved its own seq past it, and commits a grant only by moving
        -- its seq on from the grant's, so this lease's grant never reached the node and never will: its answer was
        -- lost to the bound, and the give-back came before any retry. Answered stale, the grant was lost to every
        -- node (found by review); it goes back with the refund instead.
        if op == 'R' and rop == 'L' then
            unclaimed = tonumber(rtokens)
        else
            return {2, 0, 0, now, amount}
        end
    end
end

local capacity = limit * window
local credits = capacity
local last = now
if state[1] then
    credits = tonumber(state[1])
    last = tonumber(state[2])
    local counted_limit = tonumber(state[3])
    local counted_window = tonumber(state[4])
    if counted_limit ~= limit or counted_window ~= window then
        -- the quota changed: keep the whole tokens, at most the new capacity, and drop a fraction of one
        credits = math.min(div(credits, counted_window), limit) * window
    end
    if now > last then
        local elapsed = now - last
        if elapsed >= window then
            credits = capacity
        elseif elapsed * limit >= capacity - credits then
            credits = capacity
        else
            credits = credits + elapsed * limit
        end
        last = now
    end
end

local tokens = 0
local wait = 0
if op == 'L' then
    tokens = math.min(amount, div(credits, window))
    credits = credits - tokens * window
    if credits < window then
        wait = div(window - credits + limit - 1, limit)
    end
elseif op == 'R' then
    tokens = amount
    local back = amount + unclaimed -- past 2^53 only when far above the limit, which the first test catches
    if back >= limit or back * window >= capacity - credits then
        credits = capacity
    else
        credits = credits + back * window
    end
else
    return redis.error_reply('floodgate lease: unknown op')
end

-- an idle bucket refills within one window, so it may go after two; the minute keeps a retry's seq record
local idle = 2 * window + 60000

-- A bucket in use never expires, and every node incarnation (a table file made anew, at each boot) calls under a
-- name of its own: without a sweep its records would pile up for as long as the bucket stays busy. A few fields a
-- call (a small hash answers whole), resumed from the stored cursor: another node's record as old as an idle
-- bucket is dropped (its retries ended long ago: a node retries within seconds, and a lost record can only make a
-- late retry apply twice to the bucket, which that node discards: under-admission); an older engine's record,
-- which has no time, is given this call's, so it goes one idle period later unless that node calls again.
local swept = redis.call('HSCAN', key, state[6] or '0', 'COUNT', 8)
local found = swept[2]
for i = 1, #found, 2 do
    local name = found[i]
    if string.sub(name, 1, 2) == 'n:' and name ~= field then
        local at = string.match(found[i + 1], '^%d+ %a %d+ %d+ %d+ (%d+)$')
        if not at then
            redis.call('HSET', key, name, found[i + 1] .. ' ' .. int(now))
        elseif now - tonumber(at) >= idle then
            redis.call('HDEL', key, name)
        end
    end
end

redis.call('HSET', key, 'c', int(credits), 't', int(last), 'l', int(limit), 'w', int(window), 'p', swept[1],
    field, int(seq) .. ' ' .. op .. ' ' .. int(amount) .. ' ' .. int(tokens) .. ' ' .. int(wait) .. ' ' .. int(now))
redis.call('PEXPIRE', key, idle)
return {0, tokens, wait, now, amount}
