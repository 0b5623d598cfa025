-- The pre-queues' queued reservations, written in the transaction that stores each one's
-- ReservationQueued: the draw reads them in its order (ticket: the lowercase hex HMAC-SHA256 of
-- the id under the seed) and marks each decided in the transaction that stores its
-- ReservationDrawn, so that a draw resumed by another instance goes on where the record says.
create table draw_queue (
  reservation_id varchar(64) not null primary key,
  opens_at bigint not null,
  ticket char(64) not null,
  user_id varchar(64) not null,
  hold_ms bigint not null,
  fingerprint varchar(2000) not null,
  -- "<skuId> <quantity>" per merged line, joined by ","
  reservation_lines varchar(8000) not null,
  queued_at timestamp(6) not null,
  -- Set once decided: its place in the draw order (0-based) and its outcome
  draw_position int null,
  outcome varchar(32) null,
  refused_sku varchar(64) null,
  key draw_queue_order (opens_at, ticket)
);

-- The SKUs of each queued reservation, for a SKU's draw (queued, admitted, order).
create table draw_queue_sku (
  opens_at bigint not null,
  sku_id varchar(64) not null,
  reservation_id varchar(64) not null,
  primary key (opens_at, sku_id, reservation_id)
);

-- A draw's progress: started (no reservation is queued after it), the instance drawing it and
-- until when (its lease), decided (the seed may be revealed).
alter table draw_seed
  add column started_at timestamp(6) null,
  add column drawer varchar(200) null,
  add column lease_until timestamp(6) null,
  add column decided_at timestamp(6) null,
  add column queued bigint null,
  add column admitted bigint null;

-- The SKUs scheduled into each draw (a SKU rescheduled since is checked against its sale when
-- the draw is decided): each is told the draw is decided (DrawDecided), queued reservations or
-- none.
create table draw_sku (
  opens_at bigint not null,
  sku_id varchar(64) not null,
  primary key (opens_at, sku_id)
);
