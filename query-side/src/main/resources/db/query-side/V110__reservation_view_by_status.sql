-- The reconciliation looks up every RESERVED reservation of the view at each check: by this index,
-- not a scan of every reservation ever made.
CREATE INDEX ix_reservation_view_status ON reservation_view (status);
