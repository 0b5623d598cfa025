-- confirmed_lines_json: the units a reservation sold, as its StockConfirmed names them (the
-- format of lines_json); NULL until it is confirmed. A full confirmation sells every reserved unit;
-- a partial one sells those named, and the rest go back in a StockReleased with reason
-- NOT_CONFIRMED, which sets released_at and release_reason and leaves the status CONFIRMED.
ALTER TABLE reservation_view ADD COLUMN IF NOT EXISTS confirmed_lines_json TEXT NULL
  AFTER confirmed_at;

-- Before partial confirmations every confirmation sold all its reserved units.
UPDATE reservation_view SET confirmed_lines_json = lines_json
  WHERE status = 'CONFIRMED' AND confirmed_lines_json IS NULL;
