-- The reservation read model: one row per reservation, as its events left it.
-- status: RESERVED, CONFIRMED, RELEASED, or ABANDONED (an admission the record never stored).
-- lines_json: the reservation's lines as JSON text, [{"skuId": "...", "quantity": 2}, ...].
-- last_sequence: the aggregate sequence number of the last event applied; an event is applied only
-- when its sequence number is greater, so a redelivered event never applies twice.
-- Times are UTC; updated_at is the timestamp of the last event applied.
CREATE TABLE IF NOT EXISTS reservation_view (
  reservation_id VARCHAR(64) NOT NULL,
  user_id        VARCHAR(64) NOT NULL,
  status         VARCHAR(16) NOT NULL,
  lines_json     TEXT        NOT NULL,
  created_at     DATETIME(6) NOT NULL,
  expires_at     DATETIME(6),
  confirmed_at   DATETIME(6),
  released_at    DATETIME(6),
  release_reason VARCHAR(32),
  last_sequence  BIGINT      NOT NULL,
  updated_at     DATETIME(6) NOT NULL,
  PRIMARY KEY (reservation_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
