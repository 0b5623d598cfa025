-- An integer argument: optional minus and digits, from min to max (by default 2^53 - 1, MAX, the
-- largest integer a Lua number holds exactly); nil for anything else, nil included.
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
