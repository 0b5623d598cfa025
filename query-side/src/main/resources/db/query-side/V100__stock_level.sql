-- The stock read model: one row per SKU, total = available + reserved + sold.
CREATE TABLE IF NOT EXISTS stock_level (
  sku_id         VARCHAR(64) NOT NULL,
  total          BIGINT      NOT NULL,
  available      BIGINT      NOT NULL,
  reserved       BIGINT      NOT NULL,
  sold           BIGINT      NOT NULL,
  per_user_limit INTEGER,
  updated_at     DATETIME(6) NOT NULL,
  PRIMARY KEY (sku_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
