-- Closes the partition's gap of dropped refusals, if one is open: one entry per SKU and user, each
-- with a sequence number of its own, appended where the refusals were dropped: by reserve.lua
-- before a decision, by gap.lua when none comes. stream, gap and counter are the partition's
-- decision stream, gap and sequence counter; epoch the gate epoch and partition its index. Answers
-- how many entries it appended.
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
