-- The ledger's primary key follows the order rows are written in and the audit reads them in: a
-- SKU's entries by event time, global index and event identifier (what stock_ledger_by_time held,
-- which it replaces). Keyed by (SKU, event identifier) alone, a replay inserted its entries at
-- random places of the table and was bound by reading and writing its pages at random.
-- The uniqueness is the same: an event's time and global index are its own (the projection reads
-- the index from the event store by the event's identifier), so a redelivered event names the same
-- key and its insert finds the entry there, as before. Rows are kept as they are.
ALTER TABLE stock_ledger
  DROP PRIMARY KEY,
  DROP KEY stock_ledger_by_time,
  ADD PRIMARY KEY (sku_id, occurred_at, global_index, event_id);
