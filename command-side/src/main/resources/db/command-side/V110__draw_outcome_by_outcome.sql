-- The draw's counts (queued and admitted, per SKU and in all) read the admitted reservations by
-- this index, a few rows each, rather than every outcome of the draw: they are read once the last
-- batch is recorded, before the draw is marked decided, and by every GET of a SKU's draw.
create index draw_outcome_outcome on draw_outcome (opens_at, outcome);
