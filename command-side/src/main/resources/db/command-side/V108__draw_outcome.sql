-- The draw's decisions in a table of their own, inserted many to a statement in the transaction
-- that stores their ReservationDrawn, rather than written into the queue's rows: an update of
-- 1,000 queue rows from a derived table of the decisions cost the database 15 to 19 us of CPU a
-- row here, a multi-row insert of these 4 to 5.
create table draw_outcome (
  reservation_id varchar(64) not null primary key,
  opens_at bigint not null,
  -- Its place in the draw order (0-based)
  draw_position int not null,
  -- ADMITTED, INSUFFICIENT_STOCK, LIMIT_EXCEEDED, SALE_CLOSED or SALE_PAUSED
  outcome varchar(32) not null,
  -- The refused line's SKU, and the refusal as the gate answers a repeat of it (reserve.lua's
  -- reply, its numbers joined by spaces), which a gate rebuilt from the record restores
  refused_sku varchar(64) null,
  refusal varchar(200) null,
  key draw_outcome_order (opens_at, draw_position)
);

insert into draw_outcome (reservation_id, opens_at, draw_position, outcome, refused_sku, refusal)
select reservation_id, opens_at, draw_position, outcome, refused_sku, refusal
from draw_queue where outcome is not null;

alter table draw_queue
  drop column draw_position,
  drop column outcome,
  drop column refused_sku,
  drop column refusal;
