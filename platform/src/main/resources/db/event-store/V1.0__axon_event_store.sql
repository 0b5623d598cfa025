-- Axon Framework's tables, owned here rather than by Hibernate.
-- Valid on MySQL 8 and MariaDB 10.11+. Both services run this script (each keeps its own Flyway
-- history), so every statement is idempotent and indexes are declared inside CREATE TABLE.
-- Payloads are LONGBLOB (Hibernate's default BLOB stops at 64 KB); identifiers compare
-- case-sensitively (utf8mb4_bin), as Redis keys do.

CREATE TABLE IF NOT EXISTS domain_event_entry (
  -- AUTO_INCREMENT rather than a pooled sequence: see META-INF/orm.xml.
  global_index         BIGINT       NOT NULL AUTO_INCREMENT,
  aggregate_identifier VARCHAR(255) NOT NULL,
  sequence_number      BIGINT       NOT NULL,
  type                 VARCHAR(255),
  event_identifier     VARCHAR(255) NOT NULL,
  meta_data            LONGBLOB,
  payload              LONGBLOB     NOT NULL,
  payload_revision     VARCHAR(255),
  payload_type         VARCHAR(255) NOT NULL,
  time_stamp           VARCHAR(255) NOT NULL,
  PRIMARY KEY (global_index),
  CONSTRAINT uk_domain_event_aggregate_sequence UNIQUE (aggregate_identifier, sequence_number),
  CONSTRAINT uk_domain_event_identifier UNIQUE (event_identifier)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS snapshot_event_entry (
  aggregate_identifier VARCHAR(255) NOT NULL,
  sequence_number      BIGINT       NOT NULL,
  type                 VARCHAR(255) NOT NULL,
  event_identifier     VARCHAR(255) NOT NULL,
  meta_data            LONGBLOB,
  payload              LONGBLOB     NOT NULL,
  payload_revision     VARCHAR(255),
  payload_type         VARCHAR(255) NOT NULL,
  time_stamp           VARCHAR(255) NOT NULL,
  PRIMARY KEY (sequence_number, aggregate_identifier, type),
  CONSTRAINT uk_snapshot_event_identifier UNIQUE (event_identifier)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS token_entry (
  processor_name VARCHAR(255) NOT NULL,
  segment        INTEGER      NOT NULL,
  owner          VARCHAR(255),
  timestamp      VARCHAR(255) NOT NULL,
  token          LONGBLOB,
  token_type     VARCHAR(255),
  PRIMARY KEY (segment, processor_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS saga_entry (
  saga_id         VARCHAR(255) NOT NULL,
  saga_type       VARCHAR(255),
  revision        VARCHAR(255),
  serialized_saga LONGBLOB,
  PRIMARY KEY (saga_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS association_value_entry (
  id                BIGINT       NOT NULL AUTO_INCREMENT,
  association_key   VARCHAR(255) NOT NULL,
  association_value VARCHAR(255),
  saga_id           VARCHAR(255) NOT NULL,
  saga_type         VARCHAR(255),
  PRIMARY KEY (id),
  INDEX ix_association_lookup (saga_type, association_key, association_value),
  INDEX ix_association_saga (saga_id, saga_type)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS dead_letter_entry (
  dead_letter_id       VARCHAR(255)  NOT NULL,
  processing_group     VARCHAR(255)  NOT NULL,
  sequence_identifier  VARCHAR(255)  NOT NULL,
  sequence_index       BIGINT        NOT NULL,
  message_type         VARCHAR(255)  NOT NULL,
  event_identifier     VARCHAR(255)  NOT NULL,
  time_stamp           VARCHAR(255)  NOT NULL,
  payload_type         VARCHAR(255)  NOT NULL,
  payload_revision     VARCHAR(255),
  payload              LONGBLOB      NOT NULL,
  meta_data            LONGBLOB,
  type                 VARCHAR(255),
  aggregate_identifier VARCHAR(255),
  sequence_number      BIGINT,
  token_type           VARCHAR(255),
  token                LONGBLOB,
  enqueued_at          DATETIME(6)   NOT NULL,
  last_touched         DATETIME(6),
  processing_started   DATETIME(6),
  cause_type           VARCHAR(255),
  cause_message        VARCHAR(1023),
  diagnostics          LONGBLOB,
  PRIMARY KEY (dead_letter_id),
  CONSTRAINT uk_dead_letter_sequence UNIQUE (processing_group, sequence_identifier, sequence_index),
  INDEX ix_dead_letter_group (processing_group),
  INDEX ix_dead_letter_sequence (processing_group, sequence_identifier)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
