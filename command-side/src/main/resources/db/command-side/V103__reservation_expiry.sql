-- When each reservation's hold ends: one row per reservation, written in the transaction that
-- stores its StockReserved, deleted once its expiry has run (a reservation confirmed or released
-- before keeps its row until then: its expiry finds it ended and does nothing). Every instance
-- polls the due rows with FOR UPDATE SKIP LOCKED (MariaDB 10.6+, MySQL 8), so each runs once.
-- due_at is UTC, compared with the database's UTC clock. Reservations stored before this table
-- keep their expiry in scheduled_tasks, which db-scheduler still runs.
CREATE TABLE reservation_expiry (
    reservation_id VARCHAR(255) NOT NULL,
    due_at         DATETIME(6)  NOT NULL,
    PRIMARY KEY (reservation_id),
    INDEX ix_reservation_expiry_due_at (due_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
