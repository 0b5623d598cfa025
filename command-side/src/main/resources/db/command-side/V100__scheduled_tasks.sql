-- db-scheduler's table: persistent deadlines (reservation expiry), shared by all instances.
CREATE TABLE IF NOT EXISTS scheduled_tasks (
  task_name            VARCHAR(100) NOT NULL,
  task_instance        VARCHAR(100) NOT NULL,
  task_data            LONGBLOB,
  execution_time       DATETIME(6)  NOT NULL,
  picked               BOOLEAN      NOT NULL,
  picked_by            VARCHAR(50),
  last_success         DATETIME(6),
  last_failure         DATETIME(6),
  consecutive_failures INT,
  last_heartbeat       DATETIME(6),
  version              BIGINT       NOT NULL,
  priority             SMALLINT,
  PRIMARY KEY (task_name, task_instance),
  INDEX ix_scheduled_tasks_execution_time (execution_time),
  INDEX ix_scheduled_tasks_last_heartbeat (last_heartbeat),
  INDEX ix_scheduled_tasks_priority_execution_time (priority, execution_time)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
