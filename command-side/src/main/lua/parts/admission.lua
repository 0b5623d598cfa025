-- The admission a later step of a reservation names (extend, recorded, transition, withdraw): its
-- sequence and the gate epoch it was admitted in, as StockReserved records them. Both arguments are
-- checked as the digits the intent holds (the sequence a non-negative integer, the epoch an
-- integer); answers an error reply for a malformed one, else nil.
local function admission_arguments(sequence, admission_epoch)
  if sequence == nil or not string.match(sequence, '^%d+$') then
    return redis.error_reply('ERR_ARGUMENT sequence')
  end
  if admission_epoch == nil or not string.match(admission_epoch, '^%-?%d+$') then
    return redis.error_reply('ERR_ARGUMENT admission epoch')
  end
  return nil
end

-- Whether an intent (its fields sequence and epoch) is another admission's than the one named:
-- the id reused by another user, or admitted anew. An intent written before intents kept their
-- epoch is compared by its sequence alone.
local function other_admission(intent_sequence, intent_epoch, sequence, admission_epoch)
  return tonumber(intent_sequence) ~= tonumber(sequence)
    or (intent_epoch and tonumber(intent_epoch) ~= tonumber(admission_epoch))
end
