-- Restores of the decision log that a rebuild of the gate still owes: one row per partition whose
-- decision stream Redis lost, written before the rebuilt gate opens. The rebuilding instance gives
-- the log back the admitted decisions of those partitions from their events once the gate is open,
-- and deletes the rows; rows left past their due time (that instance stopped, or its restore
-- failed) are taken up again by any instance, which folds the events again.
CREATE TABLE gate_decision_restore (
    epoch         BIGINT       NOT NULL,
    partition_tag VARCHAR(32)  NOT NULL,
    -- Admissions from this time on (epoch milliseconds, the partition's last moved entry's less
    -- the clocks' difference, read before the gate opened) may be missing from the log.
    since_ms      BIGINT       NOT NULL,
    -- After this the row is overdue; an instance that takes it up moves this on first.
    due_at        TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (epoch, partition_tag)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
