-- The pre-queues (contract 1.2, "Fair start"): a row per SKU and reservation waiting for the draw,
-- from ReservationQueued (one per distinct SKU of its lines) until its ReservationDrawn. The stock
-- view's sale.queued counts a SKU's rows.
-- reservation_view gains two statuses: QUEUED (waiting for the draw; last_sequence -1, so that the
-- reservation's own stream applies from its first event) and REFUSED (refused by the draw; the
-- refusal in release_reason).
CREATE TABLE IF NOT EXISTS sku_queue (
  sku_id         VARCHAR(64) NOT NULL,
  reservation_id VARCHAR(64) NOT NULL,
  PRIMARY KEY (sku_id, reservation_id),
  KEY sku_queue_reservation (reservation_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
