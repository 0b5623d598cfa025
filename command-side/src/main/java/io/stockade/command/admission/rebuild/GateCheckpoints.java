package io.stockade.command.admission.rebuild;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Checkpoints of the gate's image in the database (tables {@code gate_checkpoint} and {@code
 * gate_checkpoint_part}): the {@link GateImage} of every event up to a settled position, gzipped
 * ({@link GateImageFormat}) and cut into parts, so that a rebuild folds only the events after it.
 *
 * <p>Never trusted blindly: a checkpoint of another layout, one whose anchor (the last event stored
 * up to its position) is not in the event store (a database restored without it, another store), or
 * whose parts do not match their SHA-256 or cannot be read is skipped for the one before it, and
 * without any the rebuild folds the whole record.
 */
@Repository
class GateCheckpoints {

  private static final Logger log = LoggerFactory.getLogger(GateCheckpoints.class);

  /**
   * The layout of the image as this build writes it: a checkpoint of another one is skipped. Raise
   * it with any change to what {@link GateImage} holds.
   */
  static final int LAYOUT = 1;

  /** The largest part, far below any {@code max_allowed_packet}. */
  static final int PART_BYTES = 1 << 20;

  /** A checkpoint as its row says, without its image. */
  record Checkpoint(long id, long position, long events, int bytes, Instant createdAt) {}

  /** A checkpoint read back: its image as of a rebuild's now, and the position it goes on from. */
  record Restored(Checkpoint checkpoint, GateImage image) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;

  GateCheckpoints(JdbcTemplate jdbc, DataSource dataSource) {
    this.jdbc = jdbc;
    this.transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
  }

  /**
   * Writes a checkpoint of {@code image}, which holds every event up to global index {@code
   * position} (a settled one: no event can still be stored below it), taken in gate epoch {@code
   * epoch}.
   */
  Checkpoint write(GateImage image, long position, long epoch) {
    byte[] data = gzip(image);
    List<Object[]> anchor =
        jdbc.query(
            "select global_index, event_identifier from domain_event_entry"
                + " where global_index <= ? order by global_index desc limit 1",
            (rs, row) -> new Object[] {rs.getLong(1), rs.getString(2)},
            position);
    long anchorIndex = anchor.isEmpty() ? 0 : (Long) anchor.get(0)[0];
    String anchorEvent = anchor.isEmpty() ? null : (String) anchor.get(0)[1];
    long id =
        transactions.execute(
            status -> {
              GeneratedKeyHolder key = new GeneratedKeyHolder();
              jdbc.update(
                  connection -> {
                    var insert =
                        connection.prepareStatement(
                            "insert into gate_checkpoint (position, anchor_index, anchor_event,"
                                + " layout, gate_epoch, events, bytes, sha256)"
                                + " values (?, ?, ?, ?, ?, ?, ?, ?)",
                            new String[] {"id"});
                    insert.setLong(1, position);
                    insert.setLong(2, anchorIndex);
                    insert.setString(3, anchorEvent);
                    insert.setInt(4, LAYOUT);
                    insert.setLong(5, epoch);
                    insert.setLong(6, image.events);
                    insert.setInt(7, data.length);
                    insert.setString(8, sha256(data));
                    return insert;
                  },
                  key);
              long checkpoint = key.getKey().longValue();
              List<Object[]> parts = new ArrayList<>();
              for (int from = 0, part = 0; from < data.length; from += PART_BYTES, part++) {
                parts.add(
                    new Object[] {
                      checkpoint,
                      part,
                      Arrays.copyOfRange(data, from, Math.min(data.length, from + PART_BYTES))
                    });
              }
              jdbc.batchUpdate(
                  "insert into gate_checkpoint_part (checkpoint_id, part, data) values (?, ?, ?)",
                  parts);
              return checkpoint;
            });
    return new Checkpoint(id, position, image.events, data.length, Instant.now());
  }

  /**
   * The newest checkpoint's row of this build's layout (its parts not checked); empty when there is
   * none.
   */
  Optional<Checkpoint> latest() {
    return checkpoints("where layout = " + LAYOUT + " order by position desc, id desc limit 1")
        .stream()
        .findFirst();
  }

  /**
   * Where a fold of the record as of {@code now} starts: from the newest valid checkpoint at or
   * below {@code head} (its image, its position and id), or from nothing.
   */
  record Start(GateImage image, long after, long checkpoint) {}

  Start start(Instant now, Duration retention, long head) {
    return newest(now, retention, head)
        .map(
            restored ->
                new Start(
                    restored.image(), restored.checkpoint().position(), restored.checkpoint().id()))
        .orElseGet(() -> new Start(new GateImage(now, retention), 0, -1));
  }

  /**
   * The newest valid checkpoint at or below global index {@code head}, as an image as of {@code
   * now} that keeps ended intents for {@code retention}; empty when there is none.
   */
  Optional<Restored> newest(Instant now, Duration retention, long head) {
    List<Checkpoint> candidates = new ArrayList<>();
    try {
      candidates.addAll(
          checkpoints("where position <= " + head + " order by position desc, id desc"));
    } catch (DataAccessException e) {
      log.warn("Checkpoints of the gate not read; the whole record is folded: {}", e.toString());
      return Optional.empty();
    }
    for (Checkpoint checkpoint : candidates) {
      try {
        Optional<GateImage> image = read(checkpoint, now, retention);
        if (image.isPresent()) {
          return Optional.of(new Restored(checkpoint, image.get()));
        }
      } catch (RuntimeException e) {
        log.warn(
            "Checkpoint {} of the gate unreadable, skipped: {}", checkpoint.id(), e.toString());
      }
    }
    return Optional.empty();
  }

  /** Deletes all but the newest {@code keep} checkpoints; answers how many it deleted. */
  int prune(int keep) {
    List<Long> old =
        jdbc.queryForList(
            "select id from gate_checkpoint order by position desc, id desc limit 1000000 offset ?",
            Long.class,
            keep);
    for (Long id : old) {
      transactions.executeWithoutResult(
          status -> {
            jdbc.update("delete from gate_checkpoint_part where checkpoint_id = ?", id);
            jdbc.update("delete from gate_checkpoint where id = ?", id);
          });
    }
    return old.size();
  }

  private List<Checkpoint> checkpoints(String where) {
    return jdbc.query(
        "select id, position, events, bytes, created_at from gate_checkpoint " + where,
        (rs, row) ->
            new Checkpoint(
                rs.getLong(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getInt(4),
                rs.getTimestamp(5).toInstant()));
  }

  /** The checkpoint's image, or empty (with the reason logged) when it is not to be trusted. */
  private Optional<GateImage> read(Checkpoint checkpoint, Instant now, Duration retention) {
    Map<String, Object> row =
        jdbc.queryForMap(
            "select layout, anchor_index, anchor_event, sha256 from gate_checkpoint where id = ?",
            checkpoint.id());
    int layout = ((Number) row.get("layout")).intValue();
    if (layout != LAYOUT) {
      log.warn(
          "Checkpoint {} of the gate has layout {}, this build reads {}: skipped",
          checkpoint.id(),
          layout,
          LAYOUT);
      return Optional.empty();
    }
    long anchorIndex = ((Number) row.get("anchor_index")).longValue();
    String anchorEvent = (String) row.get("anchor_event");
    List<String> stored =
        jdbc.queryForList(
            "select event_identifier from domain_event_entry where global_index = ?",
            String.class,
            anchorIndex);
    if (anchorEvent == null ? !stored.isEmpty() : !stored.equals(List.of(anchorEvent))) {
      log.warn(
          "Checkpoint {} of the gate is not of this event store (its event {} at {} is not there):"
              + " skipped",
          checkpoint.id(),
          anchorEvent,
          anchorIndex);
      return Optional.empty();
    }
    ByteArrayOutputStream joined = new ByteArrayOutputStream(checkpoint.bytes());
    jdbc.query(
        "select data from gate_checkpoint_part where checkpoint_id = ? order by part",
        rs -> {
          joined.writeBytes(rs.getBytes(1));
        },
        checkpoint.id());
    byte[] data = joined.toByteArray();
    if (!sha256(data).equals(row.get("sha256"))) {
      log.warn("Checkpoint {} of the gate does not match its SHA-256: skipped", checkpoint.id());
      return Optional.empty();
    }
    GateImage image = new GateImage(now, retention);
    gunzip(data, image);
    return Optional.of(image);
  }

  private static byte[] gzip(GateImage image) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(bytes, 1 << 16))) {
      GateImageFormat.write(image, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void gunzip(byte[] data, GateImage image) {
    try (DataInputStream in =
        new DataInputStream(
            new BufferedInputStream(
                new GZIPInputStream(new ByteArrayInputStream(data), 1 << 16), 1 << 16))) {
      GateImageFormat.read(in, image);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
