-- A refusal of the draw as the gate answers a repeat of it (reserve.lua's reply, its numbers
-- joined by spaces): a gate rebuilt from the record keeps the draw's refusals, so that a repeat is
-- answered with the refusal and never decided anew.
alter table draw_queue add column refusal varchar(200) null;
