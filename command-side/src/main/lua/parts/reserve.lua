-- reserve.lua's decision: everything after the gate's epoch check (parts/epoch.lua). The script
-- that includes it declares draw_memo first: reserve.lua (nil), or draw.lua (the memo its call
-- shares among the reservations it decides), so that the draw decides each reservation with this
-- very code. Its keys, arguments and replies are reserve.lua's (its header).
local MAX_QUANTITY = 2147483647

local function argument_error(reason)
  return redis.error_reply('ERR_ARGUMENT ' .. reason)
end

--#include parts/integer.lua

--#include parts/valid_id.lua

local function has_type(key, expected)
  if draw_memo and draw_memo.types[key] then
    return true
  end
  local actual = redis.call('TYPE', key)['ok']
  local right = actual == 'none' or actual == expected
  if right and draw_memo then
    draw_memo.types[key] = true
  end
  return right
end

--#include parts/token_buckets.lua

-- The request's token buckets, taken out of KEYS and ARGV; a short one refuses the request.
local bucket_count = integer(table.remove(ARGV, 1), 0, 64)
if bucket_count == nil or #KEYS < bucket_count or #ARGV < 2 * bucket_count then
  return argument_error('token buckets')
end
local bucket_keys = {}
local bucket_args = {}
for i = 1, bucket_count do
  bucket_keys[i] = table.remove(KEYS, 1)
  bucket_args[2 * i - 1] = table.remove(ARGV, 1)
  bucket_args[2 * i] = table.remove(ARGV, 1)
end
local take_tokens, short = token_buckets(bucket_keys, bucket_args)
if take_tokens == nil then
  if short.err then
    return short
  end
  return { 7, short[1], short[2] }
end

-- Arguments.
local line_count = (#ARGV - 8) / 2
if #ARGV < 10 or line_count ~= math.floor(line_count) then
  return argument_error(
    'expected userId, fingerprint, now, hold, sequence, partition, backlog, final and (skuId,'
      .. ' quantity) pairs')
end
if #KEYS ~= 5 + 2 * line_count then
  return argument_error('expected 5 + 2 keys per line')
end
local reservation = string.match(KEYS[1], ':reservation:(.+)$')
if reservation == nil then
  return argument_error('intent key')
end
local user = ARGV[1]
local fingerprint = ARGV[2]
if not valid_id(user) then
  return argument_error('userId')
end
if fingerprint == nil or #fingerprint == 0 then
  return argument_error('fingerprint')
end
local now = integer(ARGV[3], 0, 9007199254740991)
local hold = integer(ARGV[4], 0, 9007199254740991)
if now == nil then
  return argument_error('now')
end
if hold == nil then
  return argument_error('hold')
end
local given = integer(ARGV[5], 0, 9007199254740991)
local partition = integer(ARGV[6], 0, 1023)
if given == nil then
  return argument_error('sequence')
end
if partition == nil then
  return argument_error('partition')
end
local backlog = integer(ARGV[7], 1, 9007199254740991)
if backlog == nil then
  return argument_error('backlog')
end
local flags = integer(ARGV[8], 0, 3)
if flags == nil then
  return argument_error('final')
end
local final = flags % 2
local drawing = flags >= 2

-- Merge lines of the same SKU.
local merged = {}
local by_sku = {}
for i = 1, line_count do
  local sku = ARGV[7 + 2 * i]
  local quantity = integer(ARGV[8 + 2 * i], 1, MAX_QUANTITY)
  if not valid_id(sku) then
    return argument_error('skuId of line ' .. (i - 1))
  end
  if quantity == nil then
    return argument_error('quantity of line ' .. (i - 1))
  end
  local line = by_sku[sku]
  if line == nil then
    line = { sku = sku, quantity = 0, counters = KEYS[4 + 2 * i], holders = KEYS[5 + 2 * i] }
    by_sku[sku] = line
    merged[#merged + 1] = line
  end
  line.quantity = line.quantity + quantity
end

-- Types of every key, before reading any of them.
if not has_type(KEYS[1], 'hash') then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
if not has_type(KEYS[2], 'string') then
  return redis.error_reply('ERR_TYPE ' .. KEYS[2])
end
if not has_type(KEYS[3], 'zset') then
  return redis.error_reply('ERR_TYPE ' .. KEYS[3])
end
if not has_type(KEYS[4], 'stream') then
  return redis.error_reply('ERR_TYPE ' .. KEYS[4])
end
if not has_type(KEYS[5], 'hash') then
  return redis.error_reply('ERR_TYPE ' .. KEYS[5])
end
for _, line in ipairs(merged) do
  if not has_type(line.counters, 'hash') then
    return redis.error_reply('ERR_TYPE ' .. line.counters)
  end
  if not has_type(line.holders, 'hash') then
    return redis.error_reply('ERR_TYPE ' .. line.holders)
  end
end

-- A reservation id is admitted at most once.
local intent = redis.call('HMGET', KEYS[1], 'fingerprint', 'sequence', 'admittedAt', 'expiresAt', 'state',
  'epoch', 'refusal')
if intent[1] then
  take_tokens()
  if intent[1] ~= fingerprint or (given > 0 and tonumber(intent[2]) ~= given) then
    return { 3 }
  end
  local recording = 0
  if intent[5] == 'RESERVED' and redis.call('ZSCORE', KEYS[3], KEYS[1]) then
    -- Not known to be stored yet (the first attempt may have crashed): this caller stores it too,
    -- and withdraw.lua will not give the units back while it may still be doing so.
    redis.call('HINCRBY', KEYS[1], 'recorders', 1)
    recording = 1
  end
  if intent[5] == 'REFUSED' then
    return { 2, tonumber(intent[2]), 0, 0, intent[5], 0, tonumber(intent[6] or '-1'), intent[7] }
  end
  return { 2, tonumber(intent[2]), tonumber(intent[3]), tonumber(intent[4]), intent[5], recording,
    tonumber(intent[6] or '-1') }
end

-- Read every line's counters, then check them in line order before taking anything.
local scheduled = false
local paused = false
for index, line in ipairs(merged) do
  local counters = redis.call('HMGET', line.counters, 'available', 'limit', 'opensAt', 'closesAt',
    'paused', 'prequeue', 'drawn')
  if counters[1] == false then
    take_tokens()
    return { 6, index - 1 }
  end
  line.available = integer(counters[1], 0, 9007199254740991)
  line.limit = integer(counters[2] or '-1', -1, 9007199254740991)
  if line.available == nil or line.limit == nil then
    return redis.error_reply('ERR_TYPE ' .. line.counters)
  end
  -- sale.lua writes these fields as integers: tonumber is check enough, and cheaper.
  if counters[3] or counters[4] then
    line.opens = counters[3] and tonumber(counters[3])
    line.closes = counters[4] and tonumber(counters[4])
    if line.opens == nil or line.closes == nil then
      return redis.error_reply('ERR_TYPE ' .. line.counters)
    end
    if counters[6] and line.opens then
      line.prequeue = tonumber(counters[6])
      line.drawn = counters[7] and tonumber(counters[7])
    end
    scheduled = true
  end
  if counters[5] == '1' then
    line.paused = true
    paused = true
  end
end

-- Every check has passed: whatever the reply, the request takes its tokens.
take_tokens()

--#include parts/close_gap.lua

-- In a draw's call the stream's length and whether its gap is open are read once per partition
-- (draw_memo.streams) and kept up to date by this code's own writes, the only ones while a script
-- runs; reserve.lua alone reads them each time, the gap only when the stream has room.
local function stream_state()
  local state = draw_memo and draw_memo.streams[KEYS[4]]
  if state == nil then
    state = { length = redis.call('XLEN', KEYS[4]) }
    if draw_memo then
      state.gap = redis.call('EXISTS', KEYS[5]) == 1
      draw_memo.streams[KEYS[4]] = state
    end
  end
  return state
end

-- The decision's sequence number and its entry in the decision stream, with each line's available
-- units after it. A refusal while the stream holds the whole backlog is dropped instead, counted
-- in the gap (sequence -1); an admitted decision is never dropped.
local function decide(outcome, taken)
  local stream = stream_state()
  local room = stream.length < backlog
  if outcome ~= 'A' and not room then
    redis.call('HINCRBY', KEYS[5], 'count', 1)
    for _, line in ipairs(merged) do
      redis.call('HINCRBY', KEYS[5], line.sku .. ' ' .. user, 1)
    end
    stream.gap = true
    return -1
  end
  if room then
    local gap = stream.gap
    if gap == nil then
      gap = redis.call('EXISTS', KEYS[5]) == 1
    end
    if gap then
      stream.length = stream.length + close_gap(KEYS[4], KEYS[5], KEYS[2], gate_epoch, partition)
      stream.gap = false
    end
  end
  local sequence = given
  if sequence == 0 then
    sequence = redis.call('INCR', KEYS[2]) * 1024 + partition
  end
  local entry = { sequence, gate_epoch, outcome, user, reservation }
  for _, line in ipairs(merged) do
    entry[#entry + 1] = line.sku
    entry[#entry + 1] = line.quantity
    entry[#entry + 1] = taken and line.available - line.quantity or line.available
  end
  redis.call('XADD', KEYS[4], '*', 'd', table.concat(entry, ' '))
  stream.length = stream.length + 1
  return sequence
end

--#include parts/time_ms.lua

-- This Redis's clock (ms), read once per call (per draw call: draw_memo above).
local function redis_clock()
  if draw_memo and draw_memo.clock then
    return draw_memo.clock
  end
  local ms = time_ms()
  if draw_memo then
    draw_memo.clock = ms
  end
  return ms
end

-- The sale's state, by this Redis's clock (ms), read once and only when a line has a schedule.
-- A SKU with no schedule and no pause costs nothing more here.
local clock
if scheduled then
  clock = redis_clock()
end
-- A refusal by the draw is kept in the intent record, so that the reservation is decided once:
-- a repeat, or the draw going on after a crash, is answered DUPLICATE with the refusal.
local function refused(reply)
  if drawing then
    redis.call('HSET', KEYS[1], 'state', 'REFUSED', 'user', user, 'fingerprint', fingerprint,
      'sequence', reply[#reply], 'epoch', gate_epoch, 'refusal', table.concat(reply, ' '))
  end
  return reply
end

if scheduled or paused then
  local queue_at
  local queue_line
  local open_line = false
  for index, line in ipairs(merged) do
    if line.opens and clock < line.opens then
      if line.prequeue and clock >= line.opens - line.prequeue
          and (queue_at == nil or queue_at == line.opens) then
        queue_at = line.opens
        queue_line = queue_line or index
      else
        return { 8, index - 1, line.opens, decide('N', false), clock }
      end
    else
      open_line = true
    end
    if line.closes and clock >= line.closes then
      return refused({ 9, index - 1, line.closes, decide('C', false) })
    end
    if line.paused then
      return refused({ 10, index - 1, decide('P', false) })
    end
    if line.prequeue and not drawing and clock >= line.opens and line.drawn ~= line.opens then
      return { 12, index - 1, line.opens }
    end
  end
  if queue_at then
    if open_line then
      return { 8, queue_line - 1, queue_at, decide('N', false), clock }
    end
    return { 11, queue_at, clock }
  end
end

for index, line in ipairs(merged) do
  if line.available < line.quantity then
    if final == 0 then
      return { 4, index - 1, 0 }
    end
    return refused({ 4, index - 1, decide('I', false) })
  end
  if line.limit >= 0 then
    local held = tonumber(redis.call('HGET', line.holders, user) or '0')
    if held + line.quantity > line.limit then
      return refused({ 5, index - 1, line.limit, held, decide('L', false) })
    end
  end
end

-- Take every line and record the intent, in one step.
local sequence = decide('A', true)
local expires = now + hold
local recorded = {}
for _, line in ipairs(merged) do
  redis.call('HINCRBY', line.counters, 'available', -line.quantity)
  redis.call('HINCRBY', line.counters, 'reserved', line.quantity)
  redis.call('HINCRBY', line.holders, user, line.quantity)
  recorded[#recorded + 1] = line.sku .. ' ' .. line.quantity
end
redis.call('HSET', KEYS[1],
  'state', 'RESERVED',
  'user', user,
  'lines', table.concat(recorded, ' '),
  'fingerprint', fingerprint,
  'sequence', sequence,
  'epoch', gate_epoch,
  'admittedAt', now,
  'expiresAt', expires,
  'recorders', 1)
if clock == nil then
  clock = redis_clock()
end
redis.call('ZADD', KEYS[3], clock, KEYS[1])
return { 1, sequence, now, expires }
