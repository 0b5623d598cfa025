-- The replay of the read models that every query-side instance follows (see Replays).
-- status: REQUESTED (every instance stops its projections' processors; the tokens are not reset
-- yet), RUNNING (tokens reset, the processors rebuild), DONE or FAILED.
-- head: the event store's highest global index when the replay was requested; DONE once every
-- segment of every projection has reached it.
-- in_progress: 1 while REQUESTED or RUNNING, NULL after; its unique key allows one at a time.
-- owner: the instance that resets the tokens; its heartbeat moves lease_until on, and once that has
-- passed another instance may take the replay over. reset_deadline: when a replay whose tokens are
-- still claimed by others fails. Times are UTC, all from the database's clock.
CREATE TABLE IF NOT EXISTS read_model_replay (
  id             VARCHAR(64)   NOT NULL,
  status         VARCHAR(16)   NOT NULL,
  head           BIGINT        NOT NULL,
  requested_at   DATETIME(6)   NOT NULL,
  started_at     DATETIME(6),
  finished_at    DATETIME(6),
  failure        VARCHAR(1000),
  owner          VARCHAR(255)  NOT NULL,
  lease_until    DATETIME(6)   NOT NULL,
  reset_deadline DATETIME(6)   NOT NULL,
  in_progress    TINYINT,
  PRIMARY KEY (id),
  UNIQUE KEY read_model_replay_one_at_a_time (in_progress)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
