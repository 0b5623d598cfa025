-- The seed of each pre-queue's draw, one per opening (opensAt in epoch milliseconds): every SKU
-- whose sale opens then with a pre-queue is in that draw. The seed is secret until the draw is
-- decided; only its commitment (the hex SHA-256 of its bytes) goes into the events before that.
create table draw_seed (
  opens_at bigint not null primary key,
  seed char(64) not null,
  commitment char(64) not null,
  created_at timestamp(6) not null default current_timestamp(6)
);
