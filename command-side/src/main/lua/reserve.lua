-- Admission gate: reserve every line of one reservation in one partition, or none.
--
-- All keys lie in one partition (one hash slot, tag {<t>}). A reservation whose SKUs lie in several
-- partitions is admitted one partition at a time, each part with this script: the first part takes
-- the next sequence number, the others are given it (ARGV[5]); a part that is refused makes the
-- caller withdraw the parts it took (withdraw.lua).
--
-- The request's rate limits come first (after the gate's epoch, below): ARGV[1] is b, the number
-- of its token buckets (0 to 64), KEYS[1..b] the buckets and ARGV[2..2b+1] their capacities and
-- refills, as token_buckets below (the same code as ratelimit.lua's) takes them: on one Redis a
-- reservation takes its buckets in this call, a round trip less than a call of ratelimit.lua
-- before it. b is 0 for no buckets (rate limits off; on a cluster, where the buckets lie in other
-- slots and ratelimit.lua takes them first; every part but the first of a reservation admitted
-- part by part, and every call after its first while units are gathered from other buckets).
-- The keys and arguments below are numbered without them.
--
-- KEYS[1]          intent record of the reservation's part (hash)  stockade:{<t>}:reservation:<reservationId>
-- KEYS[2]          admission sequence (string counter)             stockade:{<t>}:gate:sequence
-- KEYS[3]          admitted, not yet known to be recorded          stockade:{<t>}:gate:pending
--                  (sorted set: intent keys scored by the admission's time by this Redis's
--                  clock, TIME, in ms; the recovery sweeper's work list, cleared once the
--                  reservation's event is stored; pending.lua reads it by the same clock)
-- KEYS[4]          the partition's decisions (stream)              stockade:{<t>}:gate:decisions
--                  one entry per decision this script makes (admitted or refused), appended in
--                  the same call, so that the stream's order is the order of decisions; the
--                  command side moves the entries to the database (table gate_decision) and
--                  trims what it moved. Entry: one field d, "<sequence> <epoch> <outcome>
--                  <userId> <reservationId>" then "<skuId> <quantity> <availableAfter>" per
--                  merged line; outcome A (admitted), I (insufficient stock), L (limit exceeded),
--                  N (sale not open yet), C (sale closed), P (sale paused), G (refusals dropped,
--                  below)
-- KEYS[5]          refusals dropped while the stream is full (hash) stockade:{<t>}:gate:dropped
--                  an admitted decision is always appended; a refusal is appended only while the
--                  stream holds fewer than ARGV[7] entries, else it is counted here (field
--                  count, and "<skuId> <userId>" per merged line) with no sequence number. The
--                  first decision appended once the stream has room again first closes the gap:
--                  one entry "<sequence> <epoch> G <userId> - <skuId> <refusals> -" per field,
--                  each with a sequence number of its own, at the place in the order where the
--                  refusals were dropped (close_gap below; gap.lua closes it when no decision
--                  comes)
-- KEYS[4+2i]       counters of the SKU of line i (hash)            stockade:{<t>}:sku:<skuId>
--                  fields available, reserved, sold, limit (-1 = no per-user limit), and the
--                  sale's state (sale.lua writes it): opensAt, closesAt (epoch ms by Redis TIME;
--                  absent: no bound), paused (1: paused); for a SKU split into buckets, the
--                  counters of the user's bucket, in this partition (every bucket holds the
--                  same sale state)
-- KEYS[5+2i]       units each user holds of that SKU (hash)
--                  stockade:{<t>}:sku:<skuId>:holders
--                  for i = 1..n, in the caller's line order
-- ARGV[1]          userId
-- ARGV[2]          fingerprint: the whole reservation's content in canonical form; a retry must
--                  match it
-- ARGV[3]          now, epoch milliseconds, by the caller's clock: the admission's business
--                  times (admittedAt, and expiresAt = now + hold), never its pending score
-- ARGV[4]          hold, milliseconds until the reservation expires unless confirmed
-- ARGV[5]          0: take the next sequence number; else the sequence number of this admission
--                  (given by its first part); an intent of another sequence is REUSED
-- ARGV[6]          the partition's index p: a new sequence number is counter * 1024 + p, unique
--                  across partitions
-- ARGV[7]          how many entries the decision stream may hold before refusals are dropped
--                  (counted in KEYS[5]): the backlog the database may fall behind by. Nothing is
--                  ever trimmed: admitted decisions are appended whatever the stream's length
-- ARGV[8]          flags, the sum of: 1: an INSUFFICIENT refusal is a decision (recorded);
--                  without it the refusal is tentative, not recorded, because the caller will
--                  gather units from the SKU's other buckets and try again (it then records the
--                  decision it ends with); 2: a call of the pre-queue's draw: a draw pending on
--                  a line does not hold it back (DRAW_IN_PROGRESS below), and a refusal is kept
--                  in the intent record (state REFUSED, field refusal: the reply) so that the
--                  reservation is decided once
-- ARGV[7+2i]       skuId of line i
-- ARGV[8+2i]       quantity of line i, an integer from 1 to 2^31-1
--
-- Lines naming the same SKU are merged (quantities added) before anything is checked;
-- "line index" below is 0-based in the merged order (first occurrence of each SKU).
--
-- Returns:
--   {1, sequence, admittedAt, expiresAt}          ADMITTED: all lines taken, intent recorded and
--                                                 listed as pending
--   {2, sequence, admittedAt, expiresAt, state, recording, epoch}
--                                                 DUPLICATE: this reservation was admitted before
--                                                 with the same content; nothing taken. recording
--                                                 is 1 when it is RESERVED and still pending: the
--                                                 caller is counted as one more of its recorders
--                                                 (field recorders) and must store it, else 0.
--                                                 epoch: the gate epoch of that admission (-1 for
--                                                 an intent written before intents kept it).
--                                                 state REFUSED: refused by the draw; the 8th
--                                                 element is the refusal's reply, its numbers
--                                                 joined by spaces
--   {3}                                           REUSED: the id is known with other content, or
--                                                 (with a given sequence) of another admission
--   {4, lineIndex, sequence}                      INSUFFICIENT: not enough available stock
--                                                 (sequence 0: tentative, not recorded; -1:
--                                                 dropped, counted in KEYS[5])
--   {5, lineIndex, limit, alreadyHeld, sequence}  LIMIT_EXCEEDED: the user's allowance is too small
--                                                 (sequence -1: dropped, counted in KEYS[5])
--   {6, lineIndex}                                UNKNOWN_SKU: no counters for that SKU
--   {8, lineIndex, opensAt, sequence, now}        SALE_NOT_OPEN: this Redis's TIME (now, epoch ms)
--                                                 is before the SKU's opensAt (epoch ms)
--   {9, lineIndex, closesAt, sequence}            SALE_CLOSED: TIME is at or after closesAt
--   {10, lineIndex, sequence}                     SALE_PAUSED: the SKU's sale is paused
--                                                 (sequence -1 for each: dropped, counted in KEYS[5])
--   {11, opensAt, now}                            QUEUED: every line is a SKU in its pre-queue
--                                                 (prequeue ms before opensAt, by TIME) with the
--                                                 same opensAt: the caller queues it for the draw;
--                                                 nothing written, no decision
--   {12, lineIndex, opensAt}                      DRAW_IN_PROGRESS: TIME is at or after the line's
--                                                 opensAt and its pre-queue's draw is not decided
--                                                 yet (field drawn is not opensAt); nothing
--                                                 written, no decision
--   {7, bucket, retryAfterMillis}                 RATE_LIMITED: token bucket number bucket (1-based,
--                                                 the first short one) holds less than one token;
--                                                 nothing written, no decision. retryAfterMillis
--                                                 (at least 1): until every short bucket holds one
--   error "ERR_ARGUMENT <reason>"                 malformed call; nothing written
--   error "ERR_TYPE <key>"                        a key holds the wrong Redis type; nothing written
-- The sale's state is checked before stock and limits, for every line in line order before any
-- line's stock: per line not open (a line in its pre-queue is queueable instead), then closed,
-- then paused, then a draw in progress; the first line that fails answers. A reservation whose
-- lines are all queueable with one opensAt is QUEUED; one mixing a queueable line with an open
-- line, or two opensAt, is SALE_NOT_OPEN for the first line that cannot be queued with the rest.
-- Its clock is this Redis's TIME, read only when a line has a bound (a SKU with no schedule costs
-- no call). Stock and limits follow, line by line: insufficient, then limit exceeded.
-- Every check runs before the first write. Every reply but CLOSED, RATE_LIMITED and the errors
-- takes one token from each bucket, with the reply's writes. A decision (ADMITTED, INSUFFICIENT unless tentative,
-- LIMIT_EXCEEDED, SALE_NOT_OPEN, SALE_CLOSED, SALE_PAUSED: these three are never tentative) takes a sequence number and appends its entry to the decision stream; a refusal
-- writes nothing else. DUPLICATE and REUSED are no decisions (a retry answered from the record, a misused id),
-- and an unknown SKU or an error writes nothing at all: an order naming an unknown SKU is answered
-- UNKNOWN_SKU whatever its other lines.
--
-- Whether an admission was abandoned (pending for longer than a bound) is judged by one clock, the
-- partition's Redis's: the pending score is its TIME, not the caller's now, so that an instance
-- whose clock runs ahead or behind neither gives up others' admissions early nor has its own given
-- up early.
--
-- An admission is named by its sequence and its epoch: the intent keeps both (fields sequence and
-- epoch, the gate epoch the script runs in), and every later step of the reservation (confirm,
-- release, withdraw, recorded) names them and leaves any other admission of the id alone.

-- The gate's epoch comes first, before the keys and arguments above: KEYS[1] is the marker of the
-- partition the script acts in (hash stockade:{<t>}:gate) and ARGV[1] the epoch the caller opened
-- the gate in. When the marker holds another epoch, or none (Redis lost the partition's data, or
-- the gate is being rebuilt from the event store), the script answers {-1}, CLOSED, and writes
-- nothing. The rest of the script sees KEYS and ARGV without them.
local marker = table.remove(KEYS, 1)
local gate_epoch = table.remove(ARGV, 1)
if marker == nil or gate_epoch == nil or redis.call('HGET', marker, 'epoch') ~= gate_epoch then
  return { -1 }
end

local MAX_QUANTITY = 2147483647

local function argument_error(reason)
  return redis.error_reply('ERR_ARGUMENT ' .. reason)
end

local MAX = 9007199254740991

local function integer(value, min, max)
  if value == nil or not string.match(value, '^%-?%d+$') then
    return nil
  end
  local number = tonumber(value)
  if number == nil or number < min or number > (max or MAX) then
    return nil
  end
  return number
end

local function valid_id(value)
  return value ~= nil and #value >= 1 and #value <= 64 and string.match(value, '^[%w%._%-]+$') ~= nil
end

-- The draw's memo: nil here; in the draw's script (draw.lua, see GateScripts.loadDraw) the table
-- its call shares among the reservations it decides: types (the keys whose type a check found
-- right: this script writes only those types, so within one call a key found right stays right)
-- and clock (the call's one TIME, ms: the draw decides a call's reservations at one instant).
-- A draw of 100,000 then asks Redis the types of its shared keys and the time once per call, not
-- once per reservation.
local draw_memo = nil

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

-- Token buckets, the same code in ratelimit.lua and reserve.lua (scripts cannot share it). keys
-- are the buckets (hashes: fields tokens, in millionths of a token, an integer, and at, the Redis
-- time they were counted at, in microseconds; no key is a full bucket), args[2i-1] the capacity
-- of bucket i (the tokens it holds when full, an integer from 1 to 10^9) and args[2i] its refill
-- (tokens per second, a decimal number from 0.000001 to 10^9). A bucket refills continuously at
-- its rate, up to its capacity, by Redis's own clock (TIME), so that instances whose clocks differ
-- count alike; its key expires when the bucket would be full again, so an idle user or client
-- leaves no key behind. Reads every bucket and writes nothing. Answers a function that takes one
-- token from every bucket (for the caller to call once every check of its own has passed), or nil
-- and either an error reply (ERR_ARGUMENT, or ERR_TYPE for a key of another type or a malformed
-- bucket) or {index, retryAfterMillis}: bucket index (1-based, the first that holds less than one
-- token) is short, and every short bucket holds one again after retryAfterMillis (at least 1).
local function token_buckets(keys, args)
  local MICRO = 1000000
  local n = #keys
  if #args ~= 2 * n then
    return nil, redis.error_reply('ERR_ARGUMENT expected a capacity and a refill per bucket')
  end
  local capacities = {}
  local rates = {}
  for i = 1, n do
    local capacity = args[2 * i - 1]
    local rate = args[2 * i]
    if not string.match(capacity, '^%d+$') or tonumber(capacity) < 1
        or tonumber(capacity) > 1000000000 then
      return nil, redis.error_reply('ERR_ARGUMENT capacity of bucket ' .. i)
    end
    if not (string.match(rate, '^%d+$') or string.match(rate, '^%d*%.%d+$'))
        or tonumber(rate) * MICRO < 1 or tonumber(rate) > 1000000000 then
      return nil, redis.error_reply('ERR_ARGUMENT refill of bucket ' .. i)
    end
    -- In millionths of a token, and in millionths of a token per microsecond.
    capacities[i] = tonumber(capacity) * MICRO
    rates[i] = tonumber(rate)
  end
  if n == 0 then
    return function() end
  end
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * MICRO + tonumber(time[2])
  local tokens = {}
  local short = 0
  local wait = 0
  for i = 1, n do
    local kind = redis.call('TYPE', keys[i])['ok']
    if kind == 'none' then
      tokens[i] = capacities[i]
    elseif kind == 'hash' then
      local state = redis.call('HMGET', keys[i], 'tokens', 'at')
      local counted = tonumber(state[1])
      local at = tonumber(state[2])
      if counted == nil or at == nil then
        return nil, redis.error_reply('ERR_TYPE ' .. keys[i])
      end
      local elapsed = math.max(now - at, 0)
      tokens[i] = math.min(capacities[i], counted + math.floor(elapsed * rates[i]))
    else
      return nil, redis.error_reply('ERR_TYPE ' .. keys[i])
    end
    if tokens[i] < MICRO then
      if short == 0 then
        short = i
      end
      wait = math.max(wait, math.ceil((MICRO - tokens[i]) / rates[i]))
    end
  end
  if short > 0 then
    return nil, { short, math.max(math.ceil(wait / 1000), 1) }
  end
  return function()
    for i = 1, n do
      local left = tokens[i] - MICRO
      -- Whole numbers up to 10^15 are exact in a Lua number; tostring would print them with 14
      -- significant digits, so they are formatted here.
      redis.call('HSET', keys[i], 'tokens', string.format('%.0f', left), 'at',
        string.format('%.0f', now))
      -- Full again after (capacity - left) / rate microseconds.
      local full = math.ceil((capacities[i] - left) / rates[i] / 1000)
      redis.call('PEXPIRE', keys[i], string.format('%.0f', math.max(full, 1)))
    end
  end
end

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

-- Closes the partition's gap of dropped refusals, if one is open: one entry per SKU and user, each
-- with a sequence number of its own, appended where the refusals were dropped; the same code in
-- reserve.lua and gap.lua. stream, gap and counter are the partition's decision stream, gap and
-- sequence counter; epoch the gate epoch and partition its index. Answers how many entries it
-- appended.
local function close_gap(stream, gap, counter, epoch, partition)
  local fields = redis.call('HGETALL', gap)
  local appended = 0
  for i = 1, #fields, 2 do
    local sku, dropped_user = string.match(fields[i], '^(%S+) (%S+)$')
    if sku then
      local sequence = redis.call('INCR', counter) * 1024 + partition
      redis.call('XADD', stream, '*', 'd',
        table.concat({ sequence, epoch, 'G', dropped_user, '-', sku, fields[i + 1], '-' }, ' '))
      appended = appended + 1
    end
  end
  redis.call('DEL', gap)
  return appended
end

-- The decision's sequence number and its entry in the decision stream, with each line's available
-- units after it. A refusal while the stream holds the whole backlog is dropped instead, counted
-- in the gap (sequence -1); an admitted decision is never dropped.
local function decide(outcome, taken)
  local room = redis.call('XLEN', KEYS[4]) < backlog
  if outcome ~= 'A' and not room then
    redis.call('HINCRBY', KEYS[5], 'count', 1)
    for _, line in ipairs(merged) do
      redis.call('HINCRBY', KEYS[5], line.sku .. ' ' .. user, 1)
    end
    return -1
  end
  if room and redis.call('EXISTS', KEYS[5]) == 1 then
    close_gap(KEYS[4], KEYS[5], KEYS[2], gate_epoch, partition)
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
  return sequence
end

-- This Redis's clock (ms), read once per call (per draw call: draw_memo above).
local function redis_clock()
  if draw_memo and draw_memo.clock then
    return draw_memo.clock
  end
  local time = redis.call('TIME')
  local ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
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
