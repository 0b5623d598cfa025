-- An id argument (user, SKU, replenishment, adjustment, move): 1 to 64 of [A-Za-z0-9._-].
local function valid_id(value)
  return value ~= nil and #value >= 1 and #value <= 64 and string.match(value, '^[%w%._%-]+$') ~= nil
end
