-- Checkpoints of the gate's image (GateCheckpoints): what a rebuild of the gate folds from the
-- event store up to a settled position, so that the next rebuild folds only the events after it.
-- The image is written field by field (GateImageFormat), gzipped and cut into parts (a part stays
-- far below max_allowed_packet).
create table gate_checkpoint (
  id bigint not null auto_increment primary key,
  -- Every event up to this global index is in the image, and no transaction can still store one
  -- below it (a settled horizon)
  position bigint not null,
  -- The highest global index stored up to position and its event's identifier: a checkpoint of
  -- another event store (a database restored without its checkpoints) does not match it
  anchor_index bigint not null,
  anchor_event varchar(255) null,
  -- The image's layout: a checkpoint of another layout is skipped
  layout int not null,
  -- The gate's epoch when it was taken (for the operator; the image does not depend on it)
  gate_epoch bigint not null,
  events bigint not null,
  bytes int not null,
  -- SHA-256 of the parts joined, hex: a checkpoint whose parts do not match is skipped
  sha256 char(64) not null,
  created_at timestamp(3) not null default current_timestamp(3),
  key gate_checkpoint_position (position)
);

create table gate_checkpoint_part (
  checkpoint_id bigint not null,
  part int not null,
  data mediumblob not null,
  primary key (checkpoint_id, part)
);
