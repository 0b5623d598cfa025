-- What the dashboard's chart of admissions and refusals per second reads (see DecisionRates): the
-- rows of the last minutes in time order with their outcome and quantity, from the index alone,
-- without a read of each row. gate_decision is the command side's; the query side only adds an
-- index to it. Safe to run again (a Flyway repair, or the index added by another script first).
SET @ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'gate_decision'
      AND index_name = 'ix_gate_decision_time_outcome') = 0,
  'CREATE INDEX ix_gate_decision_time_outcome'
    ' ON gate_decision (decided_at, outcome, quantity)',
  'DO 0');
PREPARE add_time_outcome_index FROM @ddl;
EXECUTE add_time_outcome_index;
DEALLOCATE PREPARE add_time_outcome_index;
