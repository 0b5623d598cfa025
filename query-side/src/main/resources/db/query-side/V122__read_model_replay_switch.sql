-- Replays without downtime: a replay builds copies of the read models' tables while the models keep
-- serving and following, then switches to them (see Replays).
-- status is now: REQUESTED (the owner builds the copies; every instance's processors run on),
-- SWITCHING (every instance stops its projections' processors; once none claims a segment, the
-- owner brings the copies up to the event store and renames them in the models' place), DONE or
-- FAILED. RUNNING was the old replay's, which emptied the models.
-- switching_at: when the replay began SWITCHING; reset_deadline is then when a switch whose
-- segments are still claimed by others fails.
ALTER TABLE read_model_replay ADD COLUMN IF NOT EXISTS switching_at DATETIME(6) NULL;
