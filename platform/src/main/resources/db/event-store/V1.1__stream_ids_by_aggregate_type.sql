-- Each aggregate type has its own namespace of stream identifiers: a reservation's stream is
-- 'reservation:<reservationId>', a SKU's 'sku:<skuId>' (before, both used the bare id, so a
-- reservation and a SKU of one id collided on (aggregate_identifier, sequence_number)). This moves
-- the streams of an event store written before into their namespaces, by the aggregate type Axon
-- stored with each event; the ids in the payloads do not change.
-- Idempotent (both services run it): API ids never contain ':', so a prefixed identifier is never
-- prefixed again. Stop every instance of the previous version first: one still running would go
-- on writing bare identifiers.

UPDATE domain_event_entry
SET aggregate_identifier = CONCAT('reservation:', aggregate_identifier)
WHERE type = 'Reservation' AND aggregate_identifier NOT LIKE 'reservation:%';

UPDATE domain_event_entry
SET aggregate_identifier = CONCAT('sku:', aggregate_identifier)
WHERE type = 'Sku' AND aggregate_identifier NOT LIKE 'sku:%';

UPDATE snapshot_event_entry
SET aggregate_identifier = CONCAT('reservation:', aggregate_identifier)
WHERE type = 'Reservation' AND aggregate_identifier NOT LIKE 'reservation:%';

UPDATE snapshot_event_entry
SET aggregate_identifier = CONCAT('sku:', aggregate_identifier)
WHERE type = 'Sku' AND aggregate_identifier NOT LIKE 'sku:%';
