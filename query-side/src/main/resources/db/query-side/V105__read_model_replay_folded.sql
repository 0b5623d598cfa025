-- folded: the global index up to which the owner has folded the event table into the read models
-- (the replay's reset and fold are one transaction, so this is the only progress the others see
-- before it commits); 0 before the fold begins.
ALTER TABLE read_model_replay ADD COLUMN IF NOT EXISTS folded BIGINT NOT NULL DEFAULT 0;
