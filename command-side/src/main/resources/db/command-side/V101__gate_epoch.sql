-- The admission gate's epoch: which incarnation of the gate's Redis data the record trusts.
-- One row. A reservation is stored only while the gate is OPEN in the epoch that admitted it
-- (checked under a shared lock in the storing transaction); a rebuild of the gate moves the row to
-- the next epoch (REBUILDING) first, which waits for those transactions and fences out any later
-- one, then to OPEN once Redis holds the rebuilt gate.
CREATE TABLE gate_epoch (
    id           TINYINT      NOT NULL,
    epoch        BIGINT       NOT NULL,
    state        VARCHAR(16)  NOT NULL,
    redis_run_id VARCHAR(64)  NULL,
    owner        VARCHAR(128) NULL,
    changed_at   TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB;

INSERT INTO gate_epoch (id, epoch, state, changed_at) VALUES (1, 0, 'NEW', CURRENT_TIMESTAMP(6));
