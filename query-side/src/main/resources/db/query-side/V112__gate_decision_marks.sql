-- The audit's positions in gate_decision (see DecisionMarks): what lets a page of a SKU's decisions,
-- its total, a deep page or a page from/to an instant be answered without counting every row
-- before it. gate_decision is the command side's; the query side only adds an index to it and
-- keeps the tables below, which it alone writes. Safe to run again (a Flyway repair, or the index
-- added by another script first).
--
-- One decision stream of a SKU is its rows of one bucket (gate_partition) in one epoch: written in
-- the order the gate decided them, oldest removed first. This index holds each stream in that
-- order, narrow: what a stream's rows are counted and walked by.
SET @ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'gate_decision'
      AND index_name = 'ix_gate_decision_stream') = 0,
  'CREATE INDEX ix_gate_decision_stream'
    ' ON gate_decision (sku_id, gate_partition, epoch, decided_at, entry_seq)',
  'DO 0');
PREPARE add_stream_index FROM @ddl;
EXECUTE add_stream_index;
DEALLOCATE PREPARE add_stream_index;

-- Marks along a stream, about every stockade.decisions.mark-interval rows: at each, how many of
-- the stream's rows lie before its millisecond (position), counted from an origin of the
-- stream's own. Rows in front of a mark never change once it is written (a stream only grows
-- after its newest row), so the rows between two marks are their positions' difference; a mark
-- at or before the stream's oldest row is left behind by the retention and no longer used.
CREATE TABLE IF NOT EXISTS gate_decision_mark (
  sku_id         VARCHAR(64) NOT NULL,
  gate_partition SMALLINT    NOT NULL,
  epoch          BIGINT      NOT NULL,
  decided_at     BIGINT      NOT NULL,
  position       BIGINT      NOT NULL,
  PRIMARY KEY (sku_id, gate_partition, epoch, decided_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per stream with marks: locked while its marks are extended, so that one instance at a
-- time writes them.
CREATE TABLE IF NOT EXISTS gate_decision_mark_stream (
  sku_id         VARCHAR(64) NOT NULL,
  gate_partition SMALLINT    NOT NULL,
  epoch          BIGINT      NOT NULL,
  PRIMARY KEY (sku_id, gate_partition, epoch)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
