-- The gate's decisions: every admission the gate decided, admitted or refused, one row per SKU of
-- the order, in the order the gate decided them. Part of the record beside the events: a refusal
-- has no event. Written by the command side in bulk from each partition's decision stream in Redis
-- (stockade:{<t>}:gate:decisions); read by the query side's audit. Both services run this script,
-- so it is idempotent.
--
-- The order of decisions is the order of (decided_at, entry_seq) within one partition: the id of
-- the decision's stream entry, which Redis keeps increasing even if its clock steps back.
-- decided_at is that id's milliseconds (the partition's Redis clock). A SKU split into buckets has
-- one order per bucket (gate_partition); across buckets the rows are merged by decided_at.
-- (decided_at, entry_seq, gate_partition, epoch) names one decision: a partition's stream ids are
-- unique within an epoch, and a Redis that lost its data is rebuilt in a new epoch.
CREATE TABLE IF NOT EXISTS gate_decision (
  sku_id          VARCHAR(64)  NOT NULL,
  decided_at      BIGINT       NOT NULL,
  entry_seq       BIGINT       NOT NULL,
  gate_partition  SMALLINT     NOT NULL,
  epoch           BIGINT       NOT NULL,
  -- The gate's sequence number of the decision (admissionSequence of an admitted one's event).
  sequence        BIGINT       NOT NULL,
  reservation_id  VARCHAR(64)  NOT NULL,
  user_id         VARCHAR(64)  NOT NULL,
  quantity        INT          NOT NULL,
  -- ADMITTED, INSUFFICIENT_STOCK, PURCHASE_LIMIT_EXCEEDED.
  outcome         VARCHAR(32)  NOT NULL,
  -- The SKU's available units (of the bucket, for a SKU in buckets) right after the decision;
  -- NULL for an admitted decision whose entry Redis lost, restored from its StockReserved by the
  -- gate's rebuild (decided_at is then the admission's time by the caller's clock).
  available_after BIGINT       NULL,
  PRIMARY KEY (sku_id, decided_at, entry_seq, gate_partition, epoch),
  -- A user's decisions in time order (InnoDB appends the primary key's other columns).
  INDEX ix_gate_decision_user (user_id, decided_at, entry_seq),
  -- The retention's deletes, oldest first.
  INDEX ix_gate_decision_decided_at (decided_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per partition's decision stream: the lock an instance holds while it moves the stream's
-- entries into gate_decision (FOR UPDATE SKIP LOCKED: one instance per partition at a time), and
-- how far it has come.
CREATE TABLE IF NOT EXISTS gate_decision_drain (
  partition_tag VARCHAR(32)  NOT NULL,
  last_entry    VARCHAR(48)  NULL,
  drained       BIGINT       NOT NULL,
  -- The highest sequence number moved: a rebuilt gate's sequences go on above it.
  max_sequence  BIGINT       NOT NULL DEFAULT 0,
  changed_at    TIMESTAMP(6) NOT NULL,
  PRIMARY KEY (partition_tag)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
