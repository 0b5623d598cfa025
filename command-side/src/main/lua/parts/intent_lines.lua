-- The lines of an admission's intent (its field lines, "sku qty sku qty ..."), and their check
-- before a step moves them out of reserved (transition.lua, withdraw.lua). intent_lines answers
-- the lines as a list of {sku, quantity}; reserved_error answers an error reply when the keys of a
-- line (its counters and holders at KEYS[first + 2i] and KEYS[first + 2i + 1]) hold another type,
-- or its counters hold fewer units reserved than the line, else nil.
local function intent_lines(text)
  local lines = {}
  for sku, quantity in string.gmatch(text, '(%S+) (%d+)') do
    lines[#lines + 1] = { sku = sku, quantity = tonumber(quantity) }
  end
  return lines
end

local function reserved_error(lines, first)
  for i, line in ipairs(lines) do
    local counters = KEYS[first + 2 * i]
    local holders = KEYS[first + 2 * i + 1]
    if redis.call('TYPE', counters)['ok'] ~= 'hash' then
      return redis.error_reply('ERR_TYPE ' .. counters)
    end
    local holders_kind = redis.call('TYPE', holders)['ok']
    if holders_kind ~= 'hash' and holders_kind ~= 'none' then
      return redis.error_reply('ERR_TYPE ' .. holders)
    end
    local reserved = tonumber(redis.call('HGET', counters, 'reserved') or '0')
    if reserved < line.quantity then
      -- The counters do not hold what the intent says: a gate to rebuild, not to patch.
      return redis.error_reply('ERR_STATE ' .. counters .. ' reserved ' .. reserved)
    end
  end
  return nil
end
