-- The query-side instances alive: each one's heartbeat (seen_at, from the database's clock), so
-- that an instance holding more than its share of a projection's segments lets one go (see
-- SharingSegments). A stopped instance deletes its row; a crashed one's row ages out.
CREATE TABLE IF NOT EXISTS query_node (
  name    VARCHAR(255) NOT NULL,
  seen_at DATETIME(6)  NOT NULL,
  PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
