-- The stock read model, idempotent and safe with several segments: every change a event makes to a
-- SKU is a row of stock_ledger, keyed by (SKU, event identifier), and is added to the SKU's row of
-- stock_level only when that ledger row is new. A redelivered event finds its ledger row and
-- changes nothing; events of different aggregates may apply in any order, since the changes add
-- up. The ledger is also the audit's per-SKU history (by event time and global index).
DROP TABLE stock_level;

CREATE TABLE stock_level (
  sku_id         VARCHAR(64) NOT NULL,
  total          BIGINT      NOT NULL,
  reserved       BIGINT      NOT NULL,
  sold           BIGINT      NOT NULL,
  per_user_limit INTEGER     NULL,
  -- null until the SKU's registration has been applied: the SKU is unknown until then
  registered_at  DATETIME(6) NULL,
  updated_at     DATETIME(6) NOT NULL,
  PRIMARY KEY (sku_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE stock_ledger (
  sku_id          VARCHAR(64)  NOT NULL,
  event_id        VARCHAR(255) NOT NULL,
  global_index    BIGINT       NOT NULL,
  occurred_at     DATETIME(6)  NOT NULL,
  event_type      VARCHAR(32)  NOT NULL,
  -- the reservation, the replenishment, or the SKU itself (registration)
  reference       VARCHAR(64)  NOT NULL,
  total_change    BIGINT       NOT NULL,
  reserved_change BIGINT       NOT NULL,
  sold_change     BIGINT       NOT NULL,
  PRIMARY KEY (sku_id, event_id),
  KEY stock_ledger_by_time (sku_id, occurred_at, global_index)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Rebuilt from the first event.
DELETE FROM token_entry WHERE processor_name = 'stock-projection';
