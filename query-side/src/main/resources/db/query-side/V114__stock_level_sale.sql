-- The stock view carries the SKU's sale as its events set it (SaleScheduled, SalePaused,
-- SaleResumed, PurchaseLimitChanged); its state is computed when read. activity counts the events
-- applied to the SKU's row: the list of every SKU (GET /api/sales) is paged busiest first.
-- A sale event is an entry of the ledger too (no stock changes): it is applied once, and the
-- SKU's audit shows it.
ALTER TABLE stock_level
  ADD COLUMN opens_at         DATETIME(6)  NULL,
  ADD COLUMN closes_at        DATETIME(6)  NULL,
  ADD COLUMN prequeue_seconds INTEGER      NOT NULL DEFAULT 0,
  ADD COLUMN paused           BOOLEAN      NOT NULL DEFAULT FALSE,
  ADD COLUMN paused_reason    VARCHAR(200) NULL,
  ADD COLUMN activity         BIGINT       NOT NULL DEFAULT 0,
  ADD KEY stock_level_busiest (activity DESC, sku_id);

-- Rows written before this column counted nothing: count their ledger entries once.
UPDATE stock_level s
  SET activity = (SELECT count(*) FROM stock_ledger l WHERE l.sku_id = s.sku_id);
